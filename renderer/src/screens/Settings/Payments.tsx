// Payments: the redirect URL and the operator name, with the record of its changes.
import { useState } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { formatDateTime } from '../../ui/format.js';

export function PaymentsSection({ view, reload }: SectionProps) {
  const [redirectUrl, setRedirectUrl] = useState(view.redirectUrl);
  const [operatorName, setOperatorName] = useState(view.operatorName);
  const s = useSave();
  return (
    <Section title="Payments">
      <form
        aria-label="Payments"
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ redirectUrl, operatorName }, reload);
        }}
      >
        <Field
          label="Redirect URL"
          error={fieldError(s.error, 'redirectUrl')}
          hint="Where the payment page sends the customer; the app captures it before it loads."
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
          label="Operator name"
          error={fieldError(s.error, 'operatorName')}
          hint="Recorded on every payment you take and every exception you resolve."
        >
          <input name="operatorName" value={operatorName} onChange={(e) => setOperatorName(e.target.value)} />
        </Field>
        <SaveRow label="Save payments" save={s} />
      </form>
      <OperatorNameChanges changes={view.operatorNameChanges} />
    </Section>
  );
}

/** The main process's record of who the operator was before and after each change of the name. */
function OperatorNameChanges({ changes }: { changes: SettingsView['operatorNameChanges'] }) {
  if (changes.length === 0) return null;
  return (
    <div className="field">
      <h3>Operator name changes</h3>
      <ul aria-label="Operator name changes" className="as-of">
        {changes.map((c, i) => (
          <li key={`${c.at}-${i}`}>
            Operator name changed {c.from !== null ? `from ${c.from} ` : ''}to {c.to} at {formatDateTime(c.at)}
          </li>
        ))}
      </ul>
    </div>
  );
}
