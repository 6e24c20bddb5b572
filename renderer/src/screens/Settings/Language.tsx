// Language: the desk's language (the system's, English or French). Applied at once, in every screen and
// every profile of this desk (main keeps it in the data folder, not in a profile); exports and the command
// line do not change with it.
import { useState } from 'react';
import type { LanguageChoice } from '../../../../main/ipc/contract/app.js';
import { errorText } from '../../desk.js';
import { Field } from '../../ui/index.js';
import { resolveLanguage, useWords } from '../../words/index.js';
import { Section } from './Section.js';

export function LanguageSection() {
  const { t, say, language, choose } = useWords();
  const [error, setError] = useState<unknown>();
  // What "the system's language" is now, named in its own language.
  const system = resolveLanguage('system').language;
  const onChange = (choice: Exclude<LanguageChoice, 'pseudo'>) => {
    setError(undefined);
    choose(choice).catch(setError);
  };
  return (
    <Section title={t('settings.language')}>
      <Field
        label={t('settings.language.label')}
        hint={t('settings.language.hint')}
        error={error ? `${t('settings.language.failed')}: ${errorText(say, error)}` : undefined}
      >
        <select
          name="language"
          value={language.choice === 'pseudo' ? 'system' : language.choice}
          onChange={(e) => onChange(e.target.value as Exclude<LanguageChoice, 'pseudo'>)}
        >
          <option value="system">
            {t('settings.language.system', { language: t(`settings.language.${system}`) })}
          </option>
          <option value="en" lang="en">
            {t('settings.language.en')}
          </option>
          <option value="fr" lang="fr">
            {t('settings.language.fr')}
          </option>
        </select>
      </Field>
    </Section>
  );
}
