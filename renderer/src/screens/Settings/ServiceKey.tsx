// Service public key: what is imported (size, fingerprint) and, outside the embedded profile, importing a PEM.
import { useState, type FormEvent } from 'react';
import { useDeskAction } from '../../hooks.js';
import { Field } from '../../ui/index.js';
import { Section, type SectionProps } from './Section.js';
import { errorText } from '../../desk.js';
import { useWords } from '../../words/index.js';

export function ServiceKeySection({ view, reload }: SectionProps) {
  const [pem, setPem] = useState('');
  const imp = useDeskAction('settings.importServiceKey');
  const embedded = view.profile === 'embedded';
  const { t, say } = useWords();
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
    <Section title={t('settings.serviceKey')}>
      {view.serviceKey ? (
        <dl className="kv" data-testid="service-key-info">
          <dt>{t('settings.serviceKey.key')}</dt>
          <dd>
            {t('settings.serviceKey.rsa', {
              bits: view.serviceKey.bits,
              source: t(
                view.serviceKey.source === 'imported' ? 'settings.serviceKey.imported' : 'settings.serviceKey.embedded',
              ),
            })}
          </dd>
          <dt>{t('settings.serviceKey.fingerprint')}</dt>
          <dd className="mono" translate="no">
            {view.serviceKey.fingerprintSha256}
          </dd>
        </dl>
      ) : (
        <p className="as-of">{t('settings.serviceKey.none')}</p>
      )}
      {!embedded && (
        <form onSubmit={(e) => void submit(e)} aria-label={t('settings.serviceKey.import')}>
          <Field label={t('settings.serviceKey.file')}>
            <input
              type="file"
              accept=".pem,.pub,.txt,application/x-pem-file"
              onChange={(e) => void onFile(e.target.files?.[0])}
            />
          </Field>
          <Field label={t('settings.serviceKey.paste')} error={imp.error ? errorText(say, imp.error) : undefined}>
            <textarea
              rows={6}
              value={pem}
              onChange={(e) => setPem(e.target.value)}
              placeholder="-----BEGIN PUBLIC KEY-----"
              translate="no"
              spellCheck={false}
            />
          </Field>
          <button type="submit" className="primary" disabled={!pem.trim() || imp.pending}>
            {t('settings.serviceKey.importButton')}
          </button>
        </form>
      )}
    </Section>
  );
}
