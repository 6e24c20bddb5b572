// The cells of an .xlsx report as SpreadsheetML (ECMA-376 part 1, 18.3.1.4 c): each a typed cell that a
// spreadsheet opens as what it is. Text is an inline string (no shared-strings table to hold in memory)
// with the CSV's formula-injection guard; an amount a number with its currency's decimals made from the
// integer minor units as text (formatMinor: no float arithmetic), or text when a spreadsheet's double
// could not show it exactly; a time an Excel serial date in the report's time zone; booleans and ids as
// themselves. An empty value is no cell at all. The styles named here are xlsx-book.ts's.
import { currencyExponent, formatMinor, isKnownCurrency } from '../money/index.js';
import { guardFormula } from './csv.js';

/** Style ids in the book's cellXfs (xlsx-book.ts writes them in this order). */
export const STYLE = {
  header: 1,
  /** `amount + exponent`: "#,##0", "#,##0.0", "#,##0.00", "#,##0.000", "#,##0.0000". */
  amount: 2,
  time: 7,
} as const;
/** The largest currency exponent with a style of its own (ISO 4217 has none above 4). */
export const MAX_EXPONENT = 4;

/** Excel's limit for the text of one cell; longer text is cut there and ends in "…" (the CSV keeps all of it). */
export const MAX_CELL_TEXT = 32_767;

/** "A", "B", ... "Z", "AA", ... for a zero-based column index. */
export function columnName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

// Characters XML 1.0 cannot hold (C0 controls but TAB, LF and CR, and U+FFFE/U+FFFF), and a text that
// already looks like such an escape ("_x0041_"): each written as OOXML's _xHHHH_ (ST_Xstring, as Excel
// writes them; the look-alike's underscore as _x005F_). CR as a character reference (a parser reads a
// literal CR as LF). & < > as entities.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[&<>\u0000-\u0008\u000b-\u001f\ufffe\uffff]|_x[0-9a-fA-F]{4}_/;
// eslint-disable-next-line no-control-regex
const ESCAPES = /[&<>\u0000-\u0008\u000b-\u001f\ufffe\uffff]|_(?=x[0-9a-fA-F]{4}_)/g;
const hex4 = (c: number) => '_x' + c.toString(16).toUpperCase().padStart(4, '0') + '_';
function escapeOne(ch: string): string {
  if (ch === '&') return '&amp;';
  if (ch === '<') return '&lt;';
  if (ch === '>') return '&gt;';
  if (ch === '\r') return '&#13;';
  return hex4(ch.charCodeAt(0));
}

/** Text as the content of an XML element, with OOXML's escapes. */
export function xmlText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPES, escapeOne) : s;
}

/** At most MAX_CELL_TEXT characters, never cutting a surrogate pair in two. */
function fitCell(s: string): string {
  if (s.length <= MAX_CELL_TEXT) return s;
  let end = MAX_CELL_TEXT - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end) + '…';
}

const EDGE_SPACE = /^\s|\s$/;

/** A text cell at `ref` ("B7"), guarded as the CSV guards it; '' for an empty value (no cell). */
export function textCellXml(ref: string, v: string | null | undefined): string {
  if (v === null || v === undefined || v === '') return '';
  return inlineString(ref, guardFormula(v));
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
/**
 * A number the report made as text (an amount a double cannot show exactly): a text cell as the CSV
 * writes it, its leading minus no formula (anything but a plain decimal is guarded as text is).
 */
function numberAsText(ref: string, v: string): string {
  return DECIMAL.test(v) ? inlineString(ref, v) : textCellXml(ref, v);
}

function inlineString(ref: string, text: string): string {
  const s = xmlText(fitCell(text));
  return EDGE_SPACE.test(s)
    ? `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${s}</t></is></c>`
    : `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
}

/** An integer (an id, a count) as a number cell; anything else the CSV would write, as text. */
export function integerCellXml(ref: string, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' && Number.isSafeInteger(v) && Math.abs(v) < 1e15) return `<c r="${ref}"><v>${v}</v></c>`;
  return numberAsText(ref, String(v));
}

/** 'true' / 'false' (the CSV's words) as a boolean cell; '' as no cell; anything else as text. */
export function booleanCellXml(ref: string, v: string): string {
  if (v === 'true') return `<c r="${ref}" t="b"><v>1</v></c>`;
  if (v === 'false') return `<c r="${ref}" t="b"><v>0</v></c>`;
  return textCellXml(ref, v);
}

const exponents = new Map<string, number>();
function exponentOf(currency: string | null | undefined): number {
  if (!currency) return -1;
  let exp = exponents.get(currency);
  if (exp === undefined) exponents.set(currency, (exp = isKnownCurrency(currency) ? currencyExponent(currency) : -1));
  return exp;
}

/**
 * Digits a spreadsheet's double shows exactly: Excel keeps 15 significant digits, and any decimal of at
 * most 15 significant digits survives text -> double -> text unchanged.
 */
const EXACT_DIGITS = 15;
function significantDigits(minor: number): number {
  const s = String(Math.abs(minor));
  return s === '0' ? 1 : s.length;
}

/**
 * An amount in integer minor units: a number cell holding the decimal formatMinor makes ("1500.50" for
 * KES: the text in the file is the amount itself, no float arithmetic on the way), styled with its
 * currency's decimals. An amount of more than 15 significant digits (10^15 minor units and up) would not
 * show exactly as a spreadsheet's double: it is written as text, the same decimal. A currency this app
 * does not know: the minor units as they are (as the CSV writes them), as a plain number. A value that is
 * not a safe integer (not an amount this app stores): text, as the CSV writes it.
 */
export function amountCellXml(ref: string, minor: unknown, currency: string | null | undefined): string {
  if (minor === null || minor === undefined) return '';
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor)) return numberAsText(ref, String(minor));
  const exp = exponentOf(currency);
  const text = exp > 0 ? formatMinor(minor, currency!) : String(minor);
  if (significantDigits(minor) > EXACT_DIGITS) return numberAsText(ref, text);
  if (exp < 0 || exp > MAX_EXPONENT) return `<c r="${ref}"><v>${text}</v></c>`;
  return `<c r="${ref}" s="${STYLE.amount + exp}"><v>${text}</v></c>`;
}

const DAY_MS = 86_400_000;
/** 1970-01-01 as an Excel serial date (the 1900 date system: day 1 is 1900-01-01, with its 29 Feb 1900). */
const EPOCH_SERIAL = 25_569;
/** 1900-03-01: before it the 1900 system's serials are off by a day (its 29 Feb 1900); such a time is text. */
const FIRST_EXACT_SERIAL = 61;

/**
 * A time in ms since the epoch as an Excel serial date (days since 1899-12-30, the fraction the time of
 * day) of its wall-clock time at `offsetMinutes` (the CSV's offset for that moment), so the cell shows what
 * the CSV's ISO 8601 text shows, to the millisecond in its value. `isoText` is the CSV's text of it, written
 * as text when it is no time a spreadsheet can hold (not a finite number, before 1900-03-01).
 */
export function timeCellXml(ref: string, ms: unknown, offsetMinutes: number, isoText: () => string): string {
  if (ms === null || ms === undefined) return '';
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return textCellXml(ref, isoText());
  const serial = (ms + offsetMinutes * 60_000) / DAY_MS + EPOCH_SERIAL;
  if (!(serial >= FIRST_EXACT_SERIAL) || serial >= 2_958_466) return textCellXml(ref, isoText());
  return `<c r="${ref}" s="${STYLE.time}"><v>${serial}</v></c>`;
}
