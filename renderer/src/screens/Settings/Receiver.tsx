// Callback receiver: whether the local receiver runs, and its host and port.
import { useState } from 'react';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { useWords } from '../../words/index.js';

export function ReceiverSection({ view, reload }: SectionProps) {
  const [enabled, setEnabled] = useState(view.callbackReceiver.enabled);
  const [host, setHost] = useState(view.callbackReceiver.host);
  const [port, setPort] = useState(String(view.callbackReceiver.port));
  const s = useSave();
  const { t, rich, say } = useWords();
  return (
    <Section title={t('settings.receiver')}>
      <p className="as-of">
        {view.callbackReceiverUrl
          ? rich('settings.receiver.listening', {
              url: (
                <span className="mono" translate="no">
                  {view.callbackReceiverUrl}
                </span>
              ),
            })
          : t('settings.receiver.notRunning')}
      </p>
      <form
        aria-label={t('settings.receiver')}
        onSubmit={(e) => {
          e.preventDefault();
          void s.save({ callbackReceiver: { enabled, host, port: Number(port) } }, reload);
        }}
      >
        <div className="field">
          <label>
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />{' '}
            {t('settings.receiver.run')}
          </label>
        </div>
        <div className="row">
          <Field label={t('settings.receiver.host')} error={fieldError(say, s.error, 'callbackReceiver.host')}>
            <input name="host" value={host} onChange={(e) => setHost(e.target.value)} spellCheck={false} />
          </Field>
          <Field label={t('settings.receiver.port')} error={fieldError(say, s.error, 'callbackReceiver.port')}>
            <input name="port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} />
          </Field>
        </div>
        <SaveRow label={t('settings.receiver.save')} save={s} />
      </form>
    </Section>
  );
}
