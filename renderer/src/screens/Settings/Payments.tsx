// Payments: the redirect URL and the operator name, with the record of its changes.
import { useState } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { useWords } from '../../words/index.js';

export function PaymentsSection({ view, reload }: SectionProps) {
  const [redirectUrl, setRedirectUrl] = useState(view.redirectUrl);
  const [operatorName, setOperatorName] = useState(view.operatorName);
  const s = useSave();
  const { t, say } = useWords();
  return (
    <Section title={t('settings.payments')}>
      <form
        aria-label={t('settings.payments')}
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ redirectUrl, operatorName }, reload);
        }}
      >
        <Field
          label={t('settings.redirectUrl')}
          error={fieldError(say, s.error, 'redirectUrl')}
          hint={t('settings.redirectUrlHint')}
        >
          <input
            name="redirectUrl"
            type="url"
            value={redirectUrl}
            onChange={(e) => setRedirectUrl(e.target.value)}
            spellCheck={false}
          />
        </Field>
        <Field
          label={t('settings.operatorName')}
          error={fieldError(say, s.error, 'operatorName')}
          hint={t('settings.operatorNameHint')}
        >
          <input name="operatorName" value={operatorName} onChange={(e) => setOperatorName(e.target.value)} />
        </Field>
        <SaveRow label={t('settings.savePayments')} save={s} />
      </form>
      <OperatorNameChanges changes={view.operatorNameChanges} />
    </Section>
  );
}

/** The main process's record of who the operator was before and after each change of the name. */
function OperatorNameChanges({ changes }: { changes: SettingsView['operatorNameChanges'] }) {
  const { t } = useWords();
  if (changes.length === 0) return null;
  return (
    <div className="field">
      <h3>{t('settings.nameChanges')}</h3>
      <ul aria-label={t('settings.nameChanges')} className="as-of">
        {changes.map((c, i) => (
          <li key={`${c.at}-${i}`}>
            {c.from !== null
              ? t('settings.nameChanged', { from: c.from, to: c.to, at: Date.parse(c.at) })
              : t('settings.nameSet', { to: c.to, at: Date.parse(c.at) })}
          </li>
        ))}
      </ul>
    </div>
  );
}
