// Callback receiver: whether the local receiver runs, and its host and port.
import { useState } from 'react';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';

export function ReceiverSection({ view, reload }: SectionProps) {
  const [enabled, setEnabled] = useState(view.callbackReceiver.enabled);
  const [host, setHost] = useState(view.callbackReceiver.host);
  const [port, setPort] = useState(String(view.callbackReceiver.port));
  const s = useSave();
  return (
    <Section title="Callback receiver">
      <p className="as-of">
        {view.callbackReceiverUrl ? (
          <>
            Listening at <span className="mono">{view.callbackReceiverUrl}</span>
          </>
        ) : (
          'Not running.'
        )}
      </p>
      <form
        aria-label="Callback receiver"
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ callbackReceiver: { enabled, host, port: Number(port) } }, reload);
        }}
      >
        <div className="field">
          <label>
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Run the local
            callback receiver
          </label>
        </div>
        <div className="row">
          <Field label="Host" error={fieldError(s.error, 'callbackReceiver.host')}>
            <input name="host" value={host} onChange={(e) => setHost(e.target.value)} spellCheck={false} />
          </Field>
          <Field label="Port (0 = any free port)" error={fieldError(s.error, 'callbackReceiver.port')}>
            <input name="port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} />
          </Field>
        </div>
        <SaveRow label="Save receiver" save={s} />
      </form>
    </Section>
  );
}
