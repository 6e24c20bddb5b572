// The person's language in the window: react-intl's provider over the one catalogue, the formats of
// the chosen locale (ui/format.ts), and the choice itself, applied at once when Settings changes it
// (no restart). <html lang> follows it.
import { createContext, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { IntlProvider } from 'react-intl';
import { catalogue } from '../../../main/words/words.shared.js';
import type { LanguageChoice } from '../../../main/ipc/contract/app.js';
import { formatsFor, type Formats } from '../ui/format.js';
import { invoke } from '../desk.js';
import { resolveLanguage, type ResolvedLanguage } from './language.js';
import { markValue, pseudoMessages } from './pseudo.js';

export interface LanguageState {
  resolved: ResolvedLanguage;
  formats: Formats;
  /** Stores the desk's choice in main and applies it at once. */
  choose(choice: Exclude<LanguageChoice, 'pseudo'>): Promise<void>;
}

export const LanguageContext = createContext<LanguageState | null>(null);

/** The desk's stored choice, asked of main before the first paint ('system' when main cannot say). */
export async function storedLanguage(): Promise<LanguageChoice> {
  try {
    return (await invoke('app.language', {})).choice;
  } catch {
    return 'system';
  }
}

export function WordsProvider({ initial, children }: { initial: LanguageChoice; children: ReactNode }) {
  const [choice, setChoice] = useState<LanguageChoice>(initial);
  const resolved = useMemo(() => resolveLanguage(choice), [choice]);
  const formats = useMemo(
    () => formatsFor(resolved.locale, resolved.pseudo ? markValue : undefined),
    [resolved.locale, resolved.pseudo],
  );
  useEffect(() => {
    document.documentElement.lang = resolved.tag;
  }, [resolved.tag]);
  const choose = useCallback(async (next: Exclude<LanguageChoice, 'pseudo'>) => {
    const r = await invoke('app.setLanguage', { choice: next });
    setChoice(r.choice);
  }, []);
  const state = useMemo(() => ({ resolved, formats, choose }), [resolved, formats, choose]);
  const messages = resolved.pseudo ? pseudoMessages() : catalogue[resolved.language];
  return (
    <LanguageContext.Provider value={state}>
      <IntlProvider
        key={resolved.tag}
        locale={resolved.pseudo ? 'en' : resolved.locale}
        defaultLocale="en"
        messages={messages}
      >
        {children}
      </IntlProvider>
    </LanguageContext.Provider>
  );
}
