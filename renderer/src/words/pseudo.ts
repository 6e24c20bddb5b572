// The pseudo-locale (tag en-XA): every text of the catalogue, accented and marked ⟦…⟧ piece by piece,
// every value placed in a message marked ⟨…⟩, and every formatted date, number and amount too. A test
// renders the screens in it (test/e2e/words.spec.ts) and fails on any letter outside those marks: a
// word that did not go through the catalogue or the formatting module. Never offered in Settings.
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { catalogue, type MessageId } from '../../../main/words/words.shared.js';

export const PSEUDO_TAG = 'en-XA';
export const TEXT_OPEN = '⟦';
export const TEXT_CLOSE = '⟧';
export const VALUE_OPEN = '⟨';
export const VALUE_CLOSE = '⟩';

const ACCENTS: Record<string, string> = {
  a: 'á',
  e: 'é',
  i: 'í',
  o: 'ó',
  u: 'ú',
  y: 'ý',
  c: 'ç',
  n: 'ñ',
  A: 'Á',
  E: 'É',
  I: 'Í',
  O: 'Ó',
  U: 'Ú',
  Y: 'Ý',
  C: 'Ç',
  N: 'Ñ',
};

/** A text as the pseudo-locale writes its letters (tests find controls by their pseudo names with it). */
export const accent = (s: string) => s.replace(/[aeiouycnAEIOUYCN]/g, (c) => ACCENTS[c]!);

export const markValue = (s: string): string => `${VALUE_OPEN}${s}${VALUE_CLOSE}`;

/** Each literal piece of a message (also inside plural and select branches and tags) accented and marked. */
function pseudoElements(els: MessageFormatElement[]): MessageFormatElement[] {
  return els.map((el) => {
    if (el.type === TYPE.literal)
      return el.value.trim() ? { ...el, value: `${TEXT_OPEN}${accent(el.value)}${TEXT_CLOSE}` } : el;
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(el.options).map(([k, o]) => [k, { ...o, value: pseudoElements(o.value) }]),
      );
      return { ...el, options } as MessageFormatElement;
    }
    if (el.type === TYPE.tag) return { ...el, children: pseudoElements(el.children) };
    return el;
  });
}

let pseudo: Record<MessageId, MessageFormatElement[]> | null = null;

/** The pseudo-locale's messages, made from the English ones once. */
export function pseudoMessages(): Record<MessageId, MessageFormatElement[]> {
  if (!pseudo) {
    const out = {} as Record<MessageId, MessageFormatElement[]>;
    for (const [id, text] of Object.entries(catalogue.en) as [MessageId, string][])
      out[id] = pseudoElements(parse(text));
    pseudo = out;
  }
  return pseudo;
}
