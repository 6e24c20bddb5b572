// The team database's CA certificate: what is stored (subject, fingerprint, expiry), and choosing it.
// Where main has a file dialog (Electron) the button asks main to open it: the window never names a
// path. Elsewhere the window reads the chosen file and sends its text, as the service key import does.
import { useState } from 'react';
import { useDeskAction } from '../../hooks.js';
import { Field } from '../../ui/index.js';
import type { SectionProps } from './Section.js';

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
  return (
    <div aria-label="Team database CA certificate" role="group">
      <Field
        label="CA certificate of the team database"
        error={tooLarge ? 'The file is too large to be a CA certificate.' : set.error?.message}
        hint="The certificate of the authority that signed the database server's certificate (PEM). It is kept with this profile."
      >
        {view.teamCaDialog ? (
          <button type="button" disabled={set.pending} onClick={() => void run({})}>
            Choose CA certificate…
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
          <dt>Subject</dt>
          <dd>{ca.subject}</dd>
          <dt>SHA-256 fingerprint</dt>
          <dd className="mono">{ca.fingerprintSha256}</dd>
          <dt>Valid until</dt>
          <dd>{ca.validTo.slice(0, 10)}</dd>
        </dl>
      ) : (
        <p className="as-of">No CA certificate: the server&apos;s certificate is checked against the public CAs.</p>
      )}
      {ca && (
        <button type="button" disabled={set.pending} onClick={() => void run({ clear: true })}>
          Remove CA certificate
        </button>
      )}
    </div>
  );
}
