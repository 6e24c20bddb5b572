// What a component says, always through here: `t(id, values)` for a catalogue message, `say(words)` for
// words main sent, `f` for every date, number and amount. Values named `...At` (ms since the epoch) and
// `...Minor` (minor units of `currency`) are formatted by `f` first, the same rule main follows in English.
import { createElement, Fragment, useContext, useMemo, type ReactNode } from 'react';
import { useIntl } from 'react-intl';
import {
  argumentsOf,
  asWords,
  prepareValues,
  type MessageId,
  type ValueShow,
  type WordValues,
  type Words,
} from '../../../main/words/words.shared.js';
import type { Formats } from '../ui/format.js';
import { LanguageContext, type LanguageState } from './WordsProvider.js';
import { markValue } from './pseudo.js';

/** A value of a rich message: text, a number, an element (an amount, a link) or a tag's wrapper. */
export type RichValue = string | number | ReactNode | ((chunks: ReactNode[]) => ReactNode);

export interface Say {
  /** A message of the catalogue in the person's language. */
  t(id: MessageId, values?: WordValues): string;
  /** A message with elements among its values (`<b>…</b>` tags, a formatted amount), as React nodes. */
  rich(id: MessageId, values: Record<string, RichValue>): ReactNode;
  /** Words main sent (an error, a notice, a status): rendered here; `fallback` when they are not words. */
  say(words: unknown, fallback?: string): string;
  /** "just now", "42 s ago", "2 min ago", "5 h ago", then the date and time. */
  ago(at: number, now: number): string;
  f: Formats;
  language: LanguageState['resolved'];
  choose: LanguageState['choose'];
}

export function useWords(): Say {
  const intl = useIntl();
  const state = useContext(LanguageContext);
  if (!state) throw new Error('useWords outside WordsProvider');
  const { formats: f, resolved, choose } = state;
  return useMemo(() => {
    const show: ValueShow = {
      moment: (ms: number) => f.dateTime(ms),
      time: (ms: number) => f.time(ms),
      amount: (minor: number, currency: string) => f.amount(minor, currency),
      message: (id, values) => t(id, values),
      ...(resolved.pseudo ? { text: markValue } : {}),
    };
    const t = (id: MessageId, values?: WordValues): string =>
      intl.formatMessage({ id }, values ? prepareValues(values, show, argumentsOf(id)) : undefined) as string;
    const rich = (id: MessageId, values: Record<string, RichValue>): ReactNode => {
      const plain: WordValues = {};
      const other: Record<string, RichValue> = {};
      for (const [k, v] of Object.entries(values)) {
        if (typeof v === 'string' || typeof v === 'number') plain[k] = v;
        else other[k] = v;
      }
      const out = intl.formatMessage({ id }, {
        ...prepareValues(plain, show, argumentsOf(id)),
        ...other,
      } as never) as ReactNode;
      // Children of one fragment, as FormattedMessage renders them (no key warnings for the pieces).
      return Array.isArray(out) ? createElement(Fragment, null, ...(out as ReactNode[])) : out;
    };
    const say = (x: unknown, fallback = '') => {
      const w: Words | null = asWords(x);
      return w ? t(w.id, w.values) : fallback;
    };
    const ago = (at: number, now: number) => {
      const s = Math.round((now - at) / 1000);
      if (s < 10) return t('ui.ago.justNow');
      if (s < 60) return t('ui.ago.seconds', { n: s });
      const m = Math.round(s / 60);
      if (m < 60) return t('ui.ago.minutes', { n: m });
      const h = Math.round(m / 60);
      if (h < 48) return t('ui.ago.hours', { n: h });
      return f.dateTime(at);
    };
    return { t, rich, say, ago, f, language: resolved, choose };
  }, [intl, f, resolved, choose]);
}
