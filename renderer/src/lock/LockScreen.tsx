// All the renderer shows while main is locked. The screens stay mounted but hidden behind it (a payment
// in progress keeps its state and shows its result after unlock); their calls are refused meanwhile.
import { useEffect, useState, type FormEvent } from 'react';
import type { LockStatus } from '../../../main/ipc/contract/lock.js';
import { DeskError, invoke } from '../desk.js';
import './lock.css';

function minutes(ms: number): string {
  const m = ms / 60_000;
  if (m >= 1 && Number.isInteger(m)) return m === 1 ? '1 minute' : `${m} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
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
  const [secret, setSecret] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<{ field: 'secret' | 'repeat'; message: string }>();
  const [pending, setPending] = useState(false);
  const [remember, setRemember] = useState(false);
  const setup = status?.needsSetup ?? false;
  const word = status?.method === 'password' ? 'password' : 'passphrase';
  // A team desk: the lock screen is the operator's sign-in to the team database.
  const login = status?.method === 'password' ? status.login : null;
  const label = word === 'password' ? 'Password' : 'Passphrase';

  // Leaving: the screen's own title back, and focus on its heading (as after navigating).
  useEffect(() => {
    const before = document.title;
    return () => {
      document.title = before;
      setTimeout(() => document.getElementById('screen-title')?.focus({ preventScroll: true }), 0);
    };
  }, []);

  useEffect(() => {
    document.title = 'Locked · Merchant Desk';
    // The field first: the person at the desk types at once; the heading is read out with the form.
    document.getElementById('lock-secret')?.focus();
  }, [setup]);

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

  return (
    <main className="lock-screen">
      <form className="lock-card" aria-labelledby="lock-title" onSubmit={(e) => void submit(e)} noValidate>
        <h1 id="lock-title" tabIndex={-1}>
          {login ? `Sign in as ${login}` : 'Merchant Desk is locked'}
        </h1>
        <p>
          {login
            ? 'Enter your team password. It is checked by the team database; after the idle time you sign in again the same way.'
            : ''}
          {!login && status ? `Locked after ${minutes(status.idleLockMs)} without input, or by Lock now. ` : ''}
          {login
            ? ''
            : setup
              ? 'Choose a passphrase of at least 8 characters to unlock it, now and next time. It is kept only as a hash in the OS keychain.'
              : `Enter your ${word} to continue. Work in progress, such as a payment being taken, carried on while locked.`}
        </p>
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
        <div className="field">
          <label htmlFor="lock-secret">{setup ? 'New passphrase' : label}</label>
          <input
            id="lock-secret"
            name="secret"
            type="password"
            autoComplete={setup ? 'new-password' : 'current-password'}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            aria-invalid={error?.field === 'secret' ? true : undefined}
            aria-describedby={error?.field === 'secret' ? 'lock-error' : undefined}
            required
          />
        </div>
        {setup && (
          <div className="field">
            <label htmlFor="lock-repeat">Repeat passphrase</label>
            <input
              id="lock-repeat"
              name="repeat"
              type="password"
              autoComplete="new-password"
              value={repeat}
              onChange={(e) => setRepeat(e.target.value)}
              aria-invalid={error?.field === 'repeat' ? true : undefined}
              aria-describedby={error?.field === 'repeat' ? 'lock-error' : undefined}
              required
            />
          </div>
        )}
        {/* Always in the page, so screen readers announce a message put into it. */}
        <div id="lock-error" role="alert" className="lock-alert">
          {error?.message}
        </div>
        {login && (
          <div className="field lock-remember">
            <label>
              <input
                type="checkbox"
                name="remember"
                checked={remember}
                onChange={(e) => setRemember(e.target.checked)}
              />{' '}
              Remember me on this computer
            </label>
            <small>The password is then kept in the OS keychain and this desktop signs in by itself.</small>
          </div>
        )}
        <button type="submit" className="primary" disabled={pending}>
          {setup ? 'Set passphrase and unlock' : login ? 'Sign in' : 'Unlock'}
        </button>
      </form>
    </main>
  );
}
