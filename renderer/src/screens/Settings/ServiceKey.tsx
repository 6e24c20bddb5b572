// Service public key: what is imported (size, fingerprint) and, outside the embedded profile, importing a PEM.
import { useState, type FormEvent } from 'react';
import { useDeskAction } from '../../hooks.js';
import { Field } from '../../ui/index.js';
import { Section, type SectionProps } from './Section.js';

export function ServiceKeySection({ view, reload }: SectionProps) {
  const [pem, setPem] = useState('');
  const imp = useDeskAction('settings.importServiceKey');
  const embedded = view.profile === 'embedded';
  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > 65536) {
      setPem('');
      return;
    }
    setPem(await file.text());
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await imp.run({ pem });
    if (r) {
      setPem('');
      await reload();
    }
  };
  return (
    <Section title="Service public key">
      {view.serviceKey ? (
        <dl className="kv" data-testid="service-key-info">
          <dt>Key</dt>
          <dd>
            RSA {view.serviceKey.bits} bits ({view.serviceKey.source})
          </dd>
          <dt>SHA-256 fingerprint</dt>
          <dd className="mono">{view.serviceKey.fingerprintSha256}</dd>
        </dl>
      ) : (
        <p className="as-of">No service public key imported yet: card payments need it.</p>
      )}
      {!embedded && (
        <form onSubmit={(e) => void submit(e)} aria-label="Import service public key">
          <Field label="PEM file">
            <input
              type="file"
              accept=".pem,.pub,.txt,application/x-pem-file"
              onChange={(e) => void onFile(e.target.files?.[0])}
            />
          </Field>
          <Field label="Or paste the PEM" error={imp.error?.message}>
            <textarea
              rows={6}
              value={pem}
              onChange={(e) => setPem(e.target.value)}
              placeholder="-----BEGIN PUBLIC KEY-----"
              spellCheck={false}
            />
          </Field>
          <button type="submit" className="primary" disabled={!pem.trim() || imp.pending}>
            Import key
          </button>
        </form>
      )}
    </Section>
  );
}
