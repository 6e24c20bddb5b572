// Words: what a person reads, as a message id of the catalogue (./catalogue.shared.ts) with its
// parameters, never a finished sentence. Main makes them (errors, refusals, notices, status words) and
// sends them as data; the window renders them in the person's language (renderer/src/words/), and main
// renders them in English only for what stays English: logs, the CLI, an error's `message`.
//
// A parameter is JSON (a string or a number). Three kinds are named by their key so that each side can
// format them in its own way: a key ending in `At` is a moment in ms since the epoch (the window shows it
// in the person's date-time format, English here as ISO 8601), one ending in `Time` the same moment as a
// time of day ("14:05"), one ending in `Stamp` the same moment as the desk's local "2026-12-02 14:05" in
// English (the window shows it as any moment); a key ending in `Minor` is an amount in
// integer minor units of the currency in the `currency` parameter (never a float, never parsed back); a
// key ending in `Id` holding a message id is that message, rendered with the same values, for the
// placeholder named without `Id` (words inside words: `whyId` fills `{why}`, e.g. why a sign-in failed
// inside the lock's sentence, with the values of both in one object).
import { IntlMessageFormat } from 'intl-messageformat';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { codeAmountText } from '../money/minor-units.shared.js';
import { setEnglish } from '../errors.shared.js';
import { catalogue, type Language, type MessageId } from './catalogue.shared.js';

export type { Language, MessageId };
export { catalogue, LANGUAGES } from './catalogue.shared.js';

/**
 * The desk's language: the operating system's ('system'), English or French. 'pseudo' is the catalogue
 * test's pseudo-locale (renderer/src/words/pseudo.ts): a stored choice only, never offered in Settings.
 */
export const LANGUAGE_CHOICES = ['system', 'en', 'fr'] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number] | 'pseudo';

export type WordValue = string | number;

export type WordValues = Record<string, WordValue>;

/** A message by id with its parameters: what travels from main to the window (JSON only). */
export interface Words {
  id: MessageId;
  values?: WordValues;
}

/** Words for `id` (values left out when there are none, so the JSON stays small). */
export function words(id: MessageId, values?: WordValues): Words {
  return values === undefined ? { id } : { id, values };
}

/**
 * Words inside words: `w` fills the placeholder `{key}` of the outer message (its id under `<key>Id`, its
 * values beside the outer ones); without words, the text as it is (a library's or the service's own).
 */
export function nest(key: string, w: Words | null | undefined, fallback: string): WordValues {
  return w ? { ...w.values, [`${key}Id`]: w.id } : { [key]: fallback };
}

export function isMessageId(x: unknown): x is MessageId {
  return typeof x === 'string' && Object.hasOwn(catalogue.en, x);
}

/** Words as they arrived over a bridge: a known id and JSON values, or null. */
export function asWords(x: unknown): Words | null {
  if (!x || typeof x !== 'object') return null;
  const { id, values } = x as { id?: unknown; values?: unknown };
  if (!isMessageId(id)) return null;
  if (values === undefined) return { id };
  if (!values || typeof values !== 'object' || Array.isArray(values)) return null;
  for (const v of Object.values(values)) if (typeof v !== 'string' && typeof v !== 'number') return null;
  return { id, values: values as WordValues };
}

/** A key of the `At` kind (a moment in ms since the epoch). */
export const isMomentKey = (key: string): boolean => /[a-z]At$/.test(key) || key === 'at';
/** A key of the `Time` kind (a moment in ms since the epoch shown as a time of day: "14:05"). */
export const isTimeKey = (key: string): boolean => /[a-z]Time$/.test(key);
/** A key of the `Stamp` kind (a moment shown in English as the desk's local "YYYY-MM-DD HH:MM"). */
export const isStampKey = (key: string): boolean => /[a-z]Stamp$/.test(key);
/** A key of the `Minor` kind (integer minor units of `values.currency`). */
export const isAmountKey = (key: string): boolean => /[a-z]Minor$/.test(key) || key === 'minor';
/** A key of the `Id` kind (a message of the catalogue, rendered with the same values). */
export const isMessageKey = (key: string): boolean => /[a-z0-9]Id$/.test(key);

export interface ValueShow {
  moment(ms: number): string;
  time(ms: number): string;
  /** A `Stamp` moment; the window shows it as any moment. */
  stamp?(ms: number): string;
  amount(minor: number, currency: string): string;
  /** A message inside the message (a key of the `Id` kind), with the same values. */
  message(id: MessageId, values: WordValues): string;
  /** Any other text value (the pseudo-locale marks them). */
  text?(s: string): string;
}

/**
 * The values with moments, amounts and inner messages turned into text by the given functions; anything
 * else as it is. Both renderings (English here, the person's language in the window) follow this one rule.
 */
export function prepareValues(values: WordValues | undefined, show: ValueShow, used?: ReadonlySet<string>): WordValues {
  const out: WordValues = {};
  if (!values) return out;
  for (const [k, v] of Object.entries(values)) {
    // A message inside is rendered only where this message says it: its siblings are for other levels.
    if (used && isMessageKey(k) && !used.has(k.slice(0, -2))) continue;
    if (typeof v === 'number' && isMomentKey(k)) out[k] = show.moment(v);
    else if (typeof v === 'number' && isTimeKey(k)) out[k] = show.time(v);
    else if (typeof v === 'number' && isStampKey(k)) out[k] = (show.stamp ?? show.moment)(v);
    else if (typeof v === 'number' && isAmountKey(k) && typeof values.currency === 'string')
      out[k] = show.amount(v, values.currency);
    else if (typeof v === 'string' && isMessageKey(k) && isMessageId(v)) {
      const inner: WordValues = {};
      for (const [ik, iv] of Object.entries(values)) if (ik !== k) inner[ik] = iv;
      out[k.slice(0, -2)] = show.message(v, inner);
    } else if (typeof v === 'string' && show.text) out[k] = show.text(v);
    else out[k] = v;
  }
  return out;
}

/** The placeholders of parsed ICU text, nested ones included, and its tags as "<b>". */
export function collectArguments(els: MessageFormatElement[], out: Set<string> = new Set()): Set<string> {
  for (const el of els) {
    if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
    if (el.type === TYPE.tag) {
      out.add(`<${el.value}>`);
      collectArguments(el.children, out);
      continue;
    }
    out.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select)
      for (const o of Object.values(el.options)) collectArguments(o.value, out);
  }
  return out;
}

const argumentCache = new Map<string, ReadonlySet<string>>();

/** The placeholders a message of the catalogue uses (the same in every language: the catalogue's test). */
export function argumentsOf(id: MessageId): ReadonlySet<string> {
  let set = argumentCache.get(id);
  if (!set) {
    set = collectArguments(parse(catalogue.en[id]), new Set());
    argumentCache.set(id, set);
  }
  return set;
}

const englishFormats = new Map<MessageId, IntlMessageFormat>();

const pad2 = (n: number) => String(n).padStart(2, '0');

const englishShow: ValueShow = {
  moment: (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms)),
  // HH:MM in this computer's time zone (main and the window share it).
  time: (ms) => `${pad2(new Date(ms).getHours())}:${pad2(new Date(ms).getMinutes())}`,
  stamp: (ms) => {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  },
  amount: (minor, currency) => codeAmountText(minor, currency) ?? `${minor} (minor units) ${currency}`,
  message: (id, values) => english({ id, values }),
};

/** The English text of some words (logs, the CLI, an error's message): moments as ISO 8601. */
export function english(w: Words): string {
  let f = englishFormats.get(w.id);
  if (!f) {
    f = new IntlMessageFormat(catalogue.en[w.id], 'en');
    englishFormats.set(w.id, f);
  }
  return String(f.format(prepareValues(w.values, englishShow, argumentsOf(w.id))));
}

// DeskError's message is this English (main/errors.shared.ts takes it from here, importing nothing).
setEnglish(english);
