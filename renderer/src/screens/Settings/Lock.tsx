// The idle lock: after this many minutes without input the app locks and asks for the operator's
// password (team) or passphrase (solo). The main process refuses more than 15 (PCI DSS 8.2.8).
import { useState } from 'react';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';

export function LockSection({ view, reload }: SectionProps) {
  const [minutes, setMinutes] = useState(String(view.idleLockMinutes));
  const s = useSave();
  return (
    <Section title="Idle lock">
      <form
        aria-label="Idle lock"
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ idleLockMinutes: Number(minutes.replace(',', '.')) }, reload);
        }}
      >
        <div className="row">
          <Field
            label="Lock after idle (minutes)"
            hint="At most 15. A payment in progress finishes; its result shows after unlock."
            error={fieldError(s.error, 'idleLockMinutes')}
          >
            <input
              name="idleLockMinutes"
              inputMode="numeric"
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          </Field>
        </div>
        <SaveRow label="Save idle lock" save={s} />
      </form>
    </Section>
  );
}
