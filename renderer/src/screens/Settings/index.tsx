import { useState, type FormEvent, type ReactNode } from 'react';
import type { KeyName, SettingsView } from '../../../../main/ipc/contract/settings.js';
import { useDeskAction, useDeskQuery } from '../../hooks.js';
import type { DeskError } from '../../desk.js';
import { ErrorBanner, Field, Loading, Screen, WarningBanner } from '../../ui/index.js';
import { shortTime } from '../../ui/dates.js';

export function SettingsScreen() {
  const q = useDeskQuery('settings.get', {}, { refreshOn: ['settings.changed'] });
  return (
    <Screen title="Settings">
      <ErrorBanner error={q.error} title="Could not read the settings" />
      {q.loading && <Loading what="settings" />}
      {q.data && <SettingsForms view={q.data} reload={q.reload} />}
    </Screen>
  );
}

/** Field errors of a failed save: error.fields keyed by the setting path (e.g. "pollIntervals.balancesMs"). */
function fieldError(error: DeskError | undefined, name: string): string | undefined {
  if (!error) return undefined;
  return error.fields?.[name] ?? (error.field === name ? error.message : undefined);
}

/** Every section ends the same way: its Save button, and "Saved" once the change is stored. */
function SaveRow({ label, save }: { label: string; save: { pending: boolean; saved: boolean } }) {
  return (
    <div className="row save-row">
      <button type="submit" className="primary" disabled={save.pending}>
        {label}
      </button>
      {save.saved && (
        <span role="status" className="badge ok">
          Saved
        </span>
      )}
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `settings-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section className="panel settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function useSave() {
  const a = useDeskAction('settings.update');
  const [saved, setSaved] = useState(false);
  return {
    ...a,
    saved,
    save: async (patch: Parameters<typeof a.run>[0], after: () => Promise<void>) => {
      setSaved(false);
      const r = await a.run(patch);
      if (r) {
        setSaved(true);
        await after();
      }
    },
  };
}

function SettingsForms({ view, reload }: { view: SettingsView; reload: () => Promise<void> }) {
  return (
    <>
      {view.problems.length > 0 && (
        <WarningBanner>
          Some stored settings were not valid and their defaults are used: {view.problems.map((p) => p.message).join('; ')}
        </WarningBanner>
      )}
      <ConnectionSection view={view} reload={reload} />
      <KeysSection view={view} reload={reload} />
      <ServiceKeySection view={view} reload={reload} />
      <PaymentsSection view={view} reload={reload} />
      <ReceiverSection view={view} reload={reload} />
      <PollingSection view={view} reload={reload} />
    </>
  );
}

type Props = { view: SettingsView; reload: () => Promise<void> };

function ConnectionSection({ view, reload }: Props) {
  const [profile, setProfile] = useState(view.profile);
  const [baseUrl, setBaseUrl] = useState(view.baseUrl ?? '');
  const s = useSave();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void s.save({ profile, baseUrl: baseUrl.trim() ? baseUrl.trim() : null }, reload);
  };
  return (
    <Section title="Connection">
      <form onSubmit={submit} aria-label="Connection">
        <Field label="Profile" error={fieldError(s.error, 'profile')} hint="Embedded runs a local sandbox with its own keys; sandbox and live use the keys below.">
          <select name="profile" value={profile} onChange={(e) => setProfile(e.target.value as SettingsView['profile'])}>
            <option value="embedded">embedded (local sandbox)</option>
            <option value="sandbox">sandbox</option>
            <option value="live">live</option>
          </select>
        </Field>
        <Field
          label="Base URL"
          error={fieldError(s.error, 'baseUrl')}
          hint={profile === 'embedded' ? `Not used by the embedded profile${view.embeddedBaseUrl ? ` (its sandbox runs at ${view.embeddedBaseUrl})` : ''}.` : 'e.g. https://api.example.com'}
        >
          <input name="baseUrl" type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://…" spellCheck={false} />
        </Field>
        <ErrorBanner error={s.error && !s.error.fields ? s.error : undefined} />
        <SaveRow label="Save connection" save={s} />
      </form>
    </Section>
  );
}

const KEY_LABEL: Record<KeyName, string> = { publicKey: 'Public key', secretKey: 'Secret key', signingKey: 'Signing key' };

function KeysSection({ view, reload }: Props) {
  const embedded = view.profile === 'embedded';
  return (
    <Section title="Keys">
      {embedded ? (
        <p className="as-of">The embedded profile uses its local sandbox's keys, held in memory. Switch the profile to sandbox or live to enter keys.</p>
      ) : !view.keys.available ? (
        <div className="banner error" role="alert">
          The OS keychain is not available{view.keys.reason ? `: ${view.keys.reason}` : ''}. Keys cannot be stored, and they are never stored in plain text instead.
        </div>
      ) : (
        <p className="as-of">
          Keys are stored in the OS keychain for the {view.profile} profile
          {view.keys.boundTo && (!view.keys.enterFor || view.keys.enterFor === view.keys.boundTo) ? (
            <>
              {' '}and are only sent to <span className="mono">{view.keys.boundTo}</span>
            </>
          ) : null}
          . They are never shown again once set.
        </p>
      )}
      {!embedded && view.keys.available && view.keys.enterFor ? <EnterKeysBanner boundTo={view.keys.boundTo} enterFor={view.keys.enterFor} /> : null}
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
            {' '}(the keys were saved for <span className="mono">{boundTo}</span> and are never sent to another host)
          </>
        ) : null}
        .
      </span>
    </div>
  );
}

function KeyRow({ name, view, disabled, reload }: { name: KeyName; view: SettingsView; disabled: boolean; reload: () => Promise<void> }) {
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
        placeholder={isSet ? (name === 'publicKey' && view.keys.maskedPublicKey ? view.keys.maskedPublicKey : 'replace…') : 'paste the key'}
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

function ServiceKeySection({ view, reload }: Props) {
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
            <input type="file" accept=".pem,.pub,.txt,application/x-pem-file" onChange={(e) => void onFile(e.target.files?.[0])} />
          </Field>
          <Field label="Or paste the PEM" error={imp.error?.message}>
            <textarea rows={6} value={pem} onChange={(e) => setPem(e.target.value)} placeholder="-----BEGIN PUBLIC KEY-----" spellCheck={false} />
          </Field>
          <button type="submit" className="primary" disabled={!pem.trim() || imp.pending}>
            Import key
          </button>
        </form>
      )}
    </Section>
  );
}

function PaymentsSection({ view, reload }: Props) {
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
        <Field label="Redirect URL" error={fieldError(s.error, 'redirectUrl')} hint="Where the payment page sends the customer; the app captures it before it loads.">
          <input name="redirectUrl" type="url" value={redirectUrl} onChange={(e) => setRedirectUrl(e.target.value)} spellCheck={false} />
        </Field>
        <Field label="Operator name" error={fieldError(s.error, 'operatorName')} hint="Recorded on every payment you take and every exception you resolve.">
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
            Operator name changed {c.from !== null ? `from ${c.from} ` : ''}to {c.to} at {shortTime(c.at)}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ReceiverSection({ view, reload }: Props) {
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
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Run the local callback receiver
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

function PollingSection({ view, reload }: Props) {
  const [balancesS, setBalancesS] = useState(String(view.pollIntervals.balancesMs / 1000));
  const [providersMin, setProvidersMin] = useState(String(view.pollIntervals.providersMs / 60000));
  const [staleMin, setStaleMin] = useState(String(view.staleAfterMs / 60000));
  const s = useSave();
  const num = (v: string, mult: number) => Math.round(Number(v.replace(',', '.')) * mult);
  return (
    <Section title="Polling">
      <form
        aria-label="Polling"
        onSubmit={(e) => {
          e.preventDefault();
          void s.save(
            {
              pollIntervals: { balancesMs: num(balancesS, 1000), providersMs: num(providersMin, 60000) },
              staleAfterMs: num(staleMin, 60000),
            },
            reload,
          );
        }}
      >
        <div className="row">
          <Field label="Balances every (seconds)" error={fieldError(s.error, 'pollIntervals.balancesMs')}>
            <input name="balancesSeconds" inputMode="decimal" value={balancesS} onChange={(e) => setBalancesS(e.target.value)} />
          </Field>
          <Field label="Payment options every (minutes)" error={fieldError(s.error, 'pollIntervals.providersMs')}>
            <input name="providersMinutes" inputMode="decimal" value={providersMin} onChange={(e) => setProvidersMin(e.target.value)} />
          </Field>
          <Field label="Stale after (minutes)" error={fieldError(s.error, 'staleAfterMs')}>
            <input name="staleMinutes" inputMode="decimal" value={staleMin} onChange={(e) => setStaleMin(e.target.value)} />
          </Field>
        </div>
        <SaveRow label="Save polling" save={s} />
      </form>
    </Section>
  );
}
