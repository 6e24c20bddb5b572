// The idle lock: after this many minutes without input the app locks and asks for the operator's
// password (team) or passphrase (solo). The main process refuses more than 15 (PCI DSS 8.2.8).
import { useState } from 'react';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { useWords } from '../../words/index.js';

export function LockSection({ view, reload }: SectionProps) {
  const [minutes, setMinutes] = useState(String(view.idleLockMinutes));
  const s = useSave();
  const { t, say } = useWords();
  return (
    <Section title={t('settings.lock')}>
      <form
        aria-label={t('settings.lock')}
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ idleLockMinutes: Number(minutes.replace(',', '.')) }, reload);
        }}
      >
        <div className="row">
          <Field
            label={t('settings.lock.after')}
            hint={t('settings.lock.hint')}
            error={fieldError(say, s.error, 'idleLockMinutes')}
          >
            <input
              name="idleLockMinutes"
              inputMode="numeric"
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          </Field>
        </div>
        <SaveRow label={t('settings.lock.save')} save={s} />
      </form>
    </Section>
  );
}
