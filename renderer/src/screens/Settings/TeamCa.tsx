// The team database's CA certificate: what is stored (subject, fingerprint, expiry), and choosing it.
// Where main has a file dialog (Electron) the button asks main to open it: the window never names a
// path. Elsewhere the window reads the chosen file and sends its text, as the service key import does.
import { useState } from 'react';
import { useDeskAction } from '../../hooks.js';
import { Field } from '../../ui/index.js';
import type { SectionProps } from './Section.js';
import { errorText } from '../../desk.js';
import { useWords } from '../../words/index.js';

const MAX_PEM = 65536;

export function TeamCa({ view, reload }: SectionProps) {
  const set = useDeskAction('settings.setTeamCa');
  const [tooLarge, setTooLarge] = useState(false);
  const run = async (req: { pem?: string; clear?: boolean }) => {
    setTooLarge(false);
    if (await set.run(req)) await reload();
  };
  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_PEM) return setTooLarge(true);
    await run({ pem: await file.text() });
  };
  const ca = view.teamSslCa;
  const { t, say, f } = useWords();
  return (
    <div aria-label={t('settings.ca.group')} role="group">
      <Field
        label={t('settings.ca.label')}
        error={tooLarge ? t('settings.ca.tooLarge') : set.error ? errorText(say, set.error) : undefined}
        hint={t('settings.ca.hint')}
      >
        {view.teamCaDialog ? (
          <button type="button" disabled={set.pending} onClick={() => void run({})}>
            {t('settings.ca.choose')}
          </button>
        ) : (
          <input
            type="file"
            accept=".pem,.crt,.cer,application/x-pem-file"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
        )}
      </Field>
      {ca ? (
        <dl className="kv" data-testid="team-ca-info">
          <dt>{t('settings.ca.subject')}</dt>
          <dd translate="no">{ca.subject}</dd>
          <dt>{t('settings.ca.fingerprint')}</dt>
          <dd className="mono" translate="no">
            {ca.fingerprintSha256}
          </dd>
          <dt>{t('settings.ca.validUntil')}</dt>
          <dd>{f.date(ca.validTo)}</dd>
        </dl>
      ) : (
        <p className="as-of">{t('settings.ca.none')}</p>
      )}
      {ca && (
        <button type="button" disabled={set.pending} onClick={() => void run({ clear: true })}>
          {t('settings.ca.remove')}
        </button>
      )}
    </div>
  );
}
