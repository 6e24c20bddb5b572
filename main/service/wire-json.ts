// The service's JSON (its answers, a callback's body) read without losing a digit. JSON.parse turns every
// number into a double before anything else sees it: 74912820901925.32 became 74912820901925.31, and no
// reader after it could tell. Here a number a double holds exactly (its shortest text is the same decimal)
// stays a number, as JSON.parse gives it; any other number is kept as the text the service sent, which
// the wire readers take like an amount sent as a string (wire-values.ts): read exactly, or refused naming
// the field and that text. The text's shape is bounded first (platform/json-shape.ts), so no parser or
// recursive reader after it runs on a body nested or sized past what the documented answers need.
import { isSafeNumber, parse } from 'lossless-json';
import { jsonShapeRefusal, type JsonShapeLimits } from '../platform/json-shape.js';

/**
 * What the service's documented bodies never need: the deepest (a payment option's option_prefixes
 * inside data.payment_providers) is 5 levels; a few thousand wallets or options are well under 1 MiB.
 */
export const SERVICE_JSON_LIMITS: Readonly<Required<JsonShapeLimits>> = { maxDepth: 16, maxBytes: 4 * 1024 * 1024 };

export type WireJson =
  { ok: true; value: unknown } | { ok: false; reason: 'not_json' | 'too_deep' | 'too_large'; message: string };

/** `text` as JSON with every number exact (a number, or the text sent when a double cannot hold it). */
export function readWireJson(text: string, limits: JsonShapeLimits = SERVICE_JSON_LIMITS): WireJson {
  const refusal = jsonShapeRefusal(text, limits);
  if (refusal) return { ok: false, reason: refusal.reason, message: refusal.message };
  try {
    // Nearly every body has only short numbers (1500.5, 202): JSON.parse reads those exactly and costs a
    // sixth of the lossless parser, which is on the way of every callback serve takes.
    if (numbersFitADouble(text)) return { ok: true, value: JSON.parse(text) as unknown };
    return { ok: true, value: parse(text, null, { parseNumber: exactNumber, onDuplicateKey: lastOne }) };
  } catch {
    return { ok: false, reason: 'not_json', message: 'the text is not valid JSON' };
  }
}

/** A number's text -> the number when its shortest text is the same decimal, else the text itself. */
function exactNumber(text: string): number | string {
  return isSafeNumber(text) ? Number(text) : text;
}

/** A key given twice keeps its last value, as JSON.parse does (the lossless parser would throw). */
function lastOne(info: { newValue: unknown }): unknown {
  return info.newValue;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;
const PLUS = 0x2b;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/**
 * Whether every number in `text` has at most 15 digits and no exponent: a decimal of 15 significant digits
 * or fewer comes back from a double as the same decimal, so JSON.parse loses nothing. One pass, no
 * allocation; a text that is not JSON is left to the parser to refuse.
 */
export function numbersFitADouble(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (c !== MINUS && (c < ZERO || c > NINE)) continue;
    let digits = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d >= ZERO && d <= NINE) digits++;
      else if (d === LOWER_E || d === UPPER_E) return false;
      else if (d !== DOT && d !== MINUS && d !== PLUS) break;
    }
    if (digits > 15) return false;
    i--; // the character after the number is looked at again
  }
  return true;
}
