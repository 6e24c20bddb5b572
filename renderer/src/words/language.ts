// Which language and formats the window uses: the desk's choice (main keeps it per desk, in the data
// folder, not per profile), where 'system' is the operating system's language as the window reports it
// (navigator.languages), English for anything that is not French. The Intl locale keeps the system's
// region when it speaks the chosen language (fr-CM, en-GB), so dates and numbers follow the person.
import type { LanguageChoice } from '../../../main/ipc/contract/app.js';
import type { Language } from '../../../main/words/words.shared.js';
import { PSEUDO_TAG } from './pseudo.js';

export interface ResolvedLanguage {
  choice: LanguageChoice;
  /** The catalogue's language. */
  language: Language;
  /** The Intl locale for dates, numbers and amounts. */
  locale: string;
  /** The <html lang> of the window. */
  tag: string;
  /** The pseudo-locale of the catalogue test (never offered to a person). */
  pseudo: boolean;
}

function systemLocales(): readonly string[] {
  return typeof navigator !== 'undefined' && navigator.languages?.length ? navigator.languages : ['en-US'];
}

const languageOf = (locale: string): Language => (/^fr\b/i.test(locale) ? 'fr' : 'en');

export function resolveLanguage(choice: LanguageChoice, system: readonly string[] = systemLocales()): ResolvedLanguage {
  if (choice === 'pseudo') return { choice, language: 'en', locale: 'en', tag: PSEUDO_TAG, pseudo: true };
  const first = system[0] ?? 'en-US';
  const language = choice === 'system' ? languageOf(first) : choice;
  // The system's own locale when it is of this language (its region's formats), else the language alone.
  const locale = system.find((l) => languageOf(l) === language && l.toLowerCase().startsWith(language)) ?? language;
  let checked: string;
  try {
    checked = Intl.getCanonicalLocales(locale)[0] ?? language;
  } catch {
    checked = language;
  }
  return { choice, language, locale: checked, tag: checked, pseudo: false };
}
