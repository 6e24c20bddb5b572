// Keys: the profile's public, secret and signing keys, set or cleared one by one in the OS keychain.
import { useState, type FormEvent } from 'react';
import type { KeyName, SettingsView } from '../../../../main/ipc/contract/settings.js';
import { useDeskAction } from '../../hooks.js';
import { Section, type SectionProps } from './Section.js';

const KEY_LABEL: Record<KeyName, string> = {
  publicKey: 'Public key',
  secretKey: 'Secret key',
  signingKey: 'Signing key',
};

export function KeysSection({ view, reload }: SectionProps) {
  const embedded = view.profile === 'embedded';
  return (
    <Section title="Keys">
      {embedded ? (
        <p className="as-of">
          The embedded profile uses its local sandbox's keys, held in memory. Switch the profile to sandbox or live to
          enter keys.
        </p>
      ) : !view.keys.available ? (
        <div className="banner error" role="alert">
          The OS keychain is not available{view.keys.reason ? `: ${view.keys.reason}` : ''}. Keys cannot be stored, and
          they are never stored in plain text instead.
        </div>
      ) : (
        <p className="as-of">
          Keys are stored in the OS keychain for the {view.profile} profile
          {view.keys.boundTo && (!view.keys.enterFor || view.keys.enterFor === view.keys.boundTo) ? (
            <>
              {' '}
              and are only sent to <span className="mono">{view.keys.boundTo}</span>
            </>
          ) : null}
          . They are never shown again once set.
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
  return (
    <div className="banner warning" role="status">
      <span>
        Keys must be entered {again ? 'again ' : ''}for <span className="mono">{enterFor}</span>
        {again ? (
          <>
            {' '}
            (the keys were saved for <span className="mono">{boundTo}</span> and are never sent to another host)
          </>
        ) : null}
        .
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
  return (
    <form className="key-row" onSubmit={(e) => void submit(e)} aria-label={KEY_LABEL[name]}>
      <label htmlFor={inputId}>{KEY_LABEL[name]}</label>
      <span className={isSet ? 'badge ok' : 'badge off'} data-testid={`key-status-${name}`}>
        {isSet ? 'set' : 'not set'}
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
              : 'replace…'
            : 'paste the key'
        }
        onChange={(e) => setValue(e.target.value)}
        aria-invalid={error ? true : undefined}
      />
      <button type="submit" disabled={disabled || !value || set.pending}>
        Set
      </button>
      <button
        type="button"
        className="danger"
        disabled={disabled || !isSet || clear.pending}
        onClick={() => void clear.run({ name }).then((r) => (r ? reload() : undefined))}
      >
        Clear
      </button>
      {error && (
        <div className="field-error" role="alert" style={{ gridColumn: '1 / -1' }}>
          {error.message}
        </div>
      )}
    </form>
  );
}
