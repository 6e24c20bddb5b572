// All the renderer shows while main is locked. The screens stay mounted but hidden behind it (a payment
// in progress keeps its state and shows its result after unlock); their calls are refused meanwhile.
import { useEffect, useLayoutEffect, useState, type FormEvent } from 'react';
import type { LockStatus } from '../../../main/ipc/contract/lock.js';
import { DeskError, invoke } from '../desk.js';
import './lock.css';

function minutes(ms: number): string {
  const m = ms / 60_000;
  if (m >= 1 && Number.isInteger(m)) return m === 1 ? '1 minute' : `${m} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}

/** What the lock asks for: a new passphrase (first use), the passphrase, or (a team desk) the operator's password. */
function lockMode(status: LockStatus | undefined) {
  const setup = status?.needsSetup ?? false;
  const word = status?.method === 'password' ? 'password' : 'passphrase';
  // A team desk: the lock screen is the operator's sign-in to the team database.
  const login = status?.method === 'password' ? status.login : null;
  return { setup, word, login };
}

/** The line under the heading: why it is locked and what to type. */
function lockIntro(status: LockStatus | undefined): string {
  const { setup, word, login } = lockMode(status);
  if (login)
    return 'Enter your team password. It is checked by the team database; after the idle time you sign in again the same way.';
  const why = status ? `Locked after ${minutes(status.idleLockMs)} without input, or by Lock now. ` : '';
  return (
    why +
    (setup
      ? 'Choose a passphrase of at least 8 characters to unlock it, now and next time. It is kept only as a hash in the OS keychain.'
      : `Enter your ${word} to continue. Work in progress, such as a payment being taken, carried on while locked.`)
  );
}

/** The window's title while locked, focus in the field (the person at the desk types at once), and back after. */
function useLockedWindow(setup: boolean): void {
  // Leaving: the screen's own title back, and focus on its heading (as after navigating).
  useEffect(() => {
    const before = document.title;
    return () => {
      document.title = before;
      setTimeout(() => document.getElementById('screen-title')?.focus({ preventScroll: true }), 0);
    };
  }, []);
  // Before the screen is painted (a layout effect), not after: keys typed as soon as it shows land in
  // the field, none on the hidden screen behind it.
  useLayoutEffect(() => {
    document.title = 'Locked · Merchant Desk';
    // The field first; the heading is read out with the form.
    document.getElementById('lock-secret')?.focus();
  }, [setup]);
}

/** The form's state and its submit: set the passphrase (first use), unlock, or sign in (remembered or not). */
function useUnlock(status: LockStatus | undefined, onUnlocked: (s: LockStatus) => void) {
  const [secret, setSecret] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<{ field: 'secret' | 'repeat'; message: string }>();
  const [pending, setPending] = useState(false);
  const [remember, setRemember] = useState(false);
  const { setup, login } = lockMode(status);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (pending) return;
    if (setup && secret !== repeat) {
      setError({ field: 'repeat', message: 'The two passphrases are not the same.' });
      return;
    }
    setPending(true);
    setError(undefined);
    try {
      const s = setup
        ? await invoke('lock.setPassphrase', { passphrase: secret })
        : await invoke('lock.unlock', login ? { secret, remember } : { secret });
      setSecret('');
      setRepeat('');
      onUnlocked(s);
    } catch (err) {
      const message = err instanceof DeskError ? err.message : 'Could not unlock; the details are in the log.';
      setError({ field: 'secret', message });
      // A wrong answer is cleared so the next try starts from an empty field.
      if (err instanceof DeskError && err.kind === 'wrong_passphrase') setSecret('');
      document.getElementById('lock-secret')?.focus();
    } finally {
      setPending(false);
    }
  }
  return { secret, setSecret, repeat, setRepeat, error, pending, remember, setRemember, submit };
}

export function LockScreen({
  status,
  notice,
  onUnlocked,
}: {
  status: LockStatus | undefined;
  /** The app's last error notice (e.g. why a team session ended): the screens behind the lock cannot show it. */
  notice?: { level: string; message: string } | undefined;
  onUnlocked: (s: LockStatus) => void;
}) {
  const { setup, word, login } = lockMode(status);
  const f = useUnlock(status, onUnlocked);
  useLockedWindow(setup);
  return (
    <main className="lock-screen">
      <form className="lock-card" aria-labelledby="lock-title" onSubmit={(e) => void f.submit(e)} noValidate>
        <h1 id="lock-title" tabIndex={-1}>
          {login ? `Sign in as ${login}` : 'Merchant Desk is locked'}
        </h1>
        <p>{lockIntro(status)}</p>
        {notice?.level === 'error' && (
          <p className="lock-problem" role="status">
            {notice.message}
          </p>
        )}
        {status?.problem && (
          <p className="lock-problem" role="status">
            {status.problem}
          </p>
        )}
        <SecretField
          id="lock-secret"
          name="secret"
          label={setup ? 'New passphrase' : word === 'password' ? 'Password' : 'Passphrase'}
          autoComplete={setup ? 'new-password' : 'current-password'}
          value={f.secret}
          onChange={f.setSecret}
          invalid={f.error?.field === 'secret'}
        />
        {setup && (
          <SecretField
            id="lock-repeat"
            name="repeat"
            label="Repeat passphrase"
            autoComplete="new-password"
            value={f.repeat}
            onChange={f.setRepeat}
            invalid={f.error?.field === 'repeat'}
          />
        )}
        {/* Always in the page, so screen readers announce a message put into it. */}
        <div id="lock-error" role="alert" className="lock-alert">
          {f.error?.message}
        </div>
        {login && <RememberMe checked={f.remember} onChange={f.setRemember} />}
        <button type="submit" className="primary" disabled={f.pending}>
          {setup ? 'Set passphrase and unlock' : login ? 'Sign in' : 'Unlock'}
        </button>
      </form>
    </main>
  );
}

/** A password field, described by the lock's error when the error is about it. */
function SecretField({
  id,
  name,
  label,
  autoComplete,
  value,
  onChange,
  invalid,
}: {
  id: string;
  name: string;
  label: string;
  autoComplete: string;
  value: string;
  onChange: (v: string) => void;
  invalid: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="password"
        autoComplete={autoComplete}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? 'lock-error' : undefined}
        required
      />
    </div>
  );
}

function RememberMe({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="field lock-remember">
      <label>
        <input type="checkbox" name="remember" checked={checked} onChange={(e) => onChange(e.target.checked)} />{' '}
        Remember me on this computer
      </label>
      <small>The password is then kept in the OS keychain and this desktop signs in by itself.</small>
    </div>
  );
}
