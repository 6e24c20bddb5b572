// Keys: the profile's public, secret and signing keys, set or cleared one by one in the OS keychain.
import { useState, type FormEvent } from 'react';
import type { KeyName, SettingsView } from '../../../../main/ipc/contract/settings.js';
import { useDeskAction } from '../../hooks.js';
import { Section, type SectionProps } from './Section.js';
import { errorText } from '../../desk.js';
import { useWords } from '../../words/index.js';
import type { MessageId } from '../../../../main/words/words.shared.js';

const KEY_LABEL: Record<KeyName, MessageId> = {
  publicKey: 'settings.key.publicKey',
  secretKey: 'settings.key.secretKey',
  signingKey: 'settings.key.signingKey',
};

const host = (h: string) => (
  <span className="mono" translate="no">
    {h}
  </span>
);

export function KeysSection({ view, reload }: SectionProps) {
  const embedded = view.profile === 'embedded';
  const { t, rich } = useWords();
  const profile = t(`app.profile.${view.profile}`);
  return (
    <Section title={t('settings.keys')}>
      {embedded ? (
        <p className="as-of">{t('settings.keys.embedded')}</p>
      ) : !view.keys.available ? (
        <div className="banner error" role="alert">
          {/* The keychain's own reason (from the OS) is said as it came. */}
          {view.keys.reason
            ? t('settings.keys.noKeychainWhy', { reason: view.keys.reason })
            : t('settings.keys.noKeychain')}
        </div>
      ) : (
        <p className="as-of">
          {view.keys.boundTo && (!view.keys.enterFor || view.keys.enterFor === view.keys.boundTo)
            ? rich('settings.keys.storedFor', { profile, host: host(view.keys.boundTo) })
            : t('settings.keys.stored', { profile })}
        </p>
      )}
      {!embedded && view.keys.available && view.keys.enterFor ? (
        <EnterKeysBanner boundTo={view.keys.boundTo} enterFor={view.keys.enterFor} />
      ) : null}
      {(Object.keys(KEY_LABEL) as KeyName[]).map((name) => (
        <KeyRow key={name} name={name} view={view} disabled={embedded || !view.keys.available} reload={reload} />
      ))}
    </Section>
  );
}

/** Keys are sent only to the host they were entered for: a new base URL host needs its own. */
function EnterKeysBanner({ boundTo, enterFor }: { boundTo: string | null; enterFor: string }) {
  const again = boundTo !== null && boundTo !== enterFor;
  const { rich } = useWords();
  return (
    <div className="banner warning" role="status">
      <span>
        {again
          ? rich('settings.keys.enterAgain', { host: host(enterFor), before: host(boundTo) })
          : rich('settings.keys.enterFor', { host: host(enterFor) })}
      </span>
    </div>
  );
}

function KeyRow({
  name,
  view,
  disabled,
  reload,
}: {
  name: KeyName;
  view: SettingsView;
  disabled: boolean;
  reload: () => Promise<void>;
}) {
  const [value, setValue] = useState('');
  const set = useDeskAction('settings.setKey');
  const clear = useDeskAction('settings.clearKey');
  const isSet = view.keys[name] === 'set';
  const inputId = `key-${name}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await set.run({ name, value });
    if (r) {
      setValue('');
      await reload();
    }
  };
  const error = set.error ?? clear.error;
  const { t, say } = useWords();
  return (
    <form className="key-row" onSubmit={(e) => void submit(e)} aria-label={t(KEY_LABEL[name])}>
      <label htmlFor={inputId}>{t(KEY_LABEL[name])}</label>
      <span className={isSet ? 'badge ok' : 'badge off'} data-testid={`key-status-${name}`}>
        {t(isSet ? 'settings.key.set' : 'settings.key.notSet')}
      </span>
      <input
        id={inputId}
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={value}
        disabled={disabled}
        placeholder={
          isSet
            ? name === 'publicKey' && view.keys.maskedPublicKey
              ? view.keys.maskedPublicKey
              : t('settings.key.replace')
            : t('settings.key.paste')
        }
        // The masked public key shown as the example is the key itself (its ends): data, not words.
        translate={isSet && name === 'publicKey' && view.keys.maskedPublicKey ? 'no' : undefined}
        onChange={(e) => setValue(e.target.value)}
        aria-invalid={error ? true : undefined}
      />
      <button type="submit" disabled={disabled || !value || set.pending}>
        {t('settings.key.setButton')}
      </button>
      <button
        type="button"
        className="danger"
        disabled={disabled || !isSet || clear.pending}
        onClick={() => void clear.run({ name }).then((r) => (r ? reload() : undefined))}
      >
        {t('settings.key.clear')}
      </button>
      {error && (
        <div className="field-error" role="alert" style={{ gridColumn: '1 / -1' }}>
          {errorText(say, error)}
        </div>
      )}
    </form>
  );
}
