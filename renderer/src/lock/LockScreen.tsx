// All the renderer shows while main is locked. The screens stay mounted but hidden behind it (a payment
// in progress keeps its state and shows its result after unlock); their calls are refused meanwhile.
import { useEffect, useLayoutEffect, useState, type FormEvent } from 'react';
import type { LockStatus } from '../../../main/ipc/contract/lock.js';
import { DeskError, errorText, invoke } from '../desk.js';
import { useWords, type Say } from '../words/index.js';
import type { Notice } from '../App.js';
import './lock.css';

/** What the lock asks for: a new passphrase (first use), the passphrase, or (a team desk) the operator's password. */
function lockMode(status: LockStatus | undefined) {
  const setup = status?.needsSetup ?? false;
  const word = status?.method === 'password' ? 'password' : 'passphrase';
  // A team desk: the lock screen is the operator's sign-in to the team database.
  const login = status?.method === 'password' ? status.login : null;
  return { setup, word, login };
}

/** Why it locked: after so many minutes (seconds in tests) without input, or by Lock now. */
function lockWhy(t: Say['t'], ms: number): string {
  const m = ms / 60_000;
  return m >= 1 && Number.isInteger(m)
    ? t('app.lock.why', { minutes: m })
    : t('app.lock.whySeconds', { seconds: Math.round(ms / 1000) });
}

/** The line under the heading: why it is locked and what to type. */
function lockIntro(t: Say['t'], status: LockStatus | undefined): string {
  const { setup, word, login } = lockMode(status);
  if (login) return t('app.lock.introTeam');
  const why = status ? `${lockWhy(t, status.idleLockMs)} ` : '';
  return (
    why + t(setup ? 'app.lock.introSetup' : word === 'password' ? 'app.lock.introPassword' : 'app.lock.introPassphrase')
  );
}

/** The window's title while locked, focus in the field (the person at the desk types at once), and back after. */
function useLockedWindow(setup: boolean, title: string): void {
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
    document.title = title;
    // The field first; the heading is read out with the form.
    document.getElementById('lock-secret')?.focus();
  }, [setup, title]);
}

/** The form's state and its submit: set the passphrase (first use), unlock, or sign in (remembered or not). */
function useUnlock(status: LockStatus | undefined, onUnlocked: (s: LockStatus) => void) {
  const [secret, setSecret] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<{ field: 'secret' | 'repeat'; message: string }>();
  const [pending, setPending] = useState(false);
  const [remember, setRemember] = useState(false);
  const { setup, login } = lockMode(status);
  const { t, say } = useWords();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (pending) return;
    if (setup && secret !== repeat) {
      setError({ field: 'repeat', message: t('app.lock.notSame') });
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
      const message = err instanceof DeskError ? errorText(say, err) : t('app.lock.couldNotUnlock');
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
  notice?: Notice | undefined;
  onUnlocked: (s: LockStatus) => void;
}) {
  const { setup, word, login } = lockMode(status);
  const { t, say } = useWords();
  const f = useUnlock(status, onUnlocked);
  useLockedWindow(setup, t('app.windowTitle.locked'));
  return (
    <main className="lock-screen">
      <form className="lock-card" aria-labelledby="lock-title" onSubmit={(e) => void f.submit(e)} noValidate>
        <h1 id="lock-title" tabIndex={-1}>
          {login ? t('app.lock.signInAs', { login }) : t('app.lock.title')}
        </h1>
        <p>{lockIntro(t, status)}</p>
        {notice?.level === 'error' && (
          <p className="lock-problem" role="status">
            {say(notice.words, notice.message)}
          </p>
        )}
        {status?.problem && (
          <p className="lock-problem" role="status">
            {say(status.problem)}
          </p>
        )}
        <SecretField
          id="lock-secret"
          name="secret"
          label={t(
            setup ? 'app.lock.newPassphrase' : word === 'password' ? 'app.lock.password' : 'app.lock.passphrase',
          )}
          autoComplete={setup ? 'new-password' : 'current-password'}
          value={f.secret}
          onChange={f.setSecret}
          invalid={f.error?.field === 'secret'}
        />
        {setup && (
          <SecretField
            id="lock-repeat"
            name="repeat"
            label={t('app.lock.repeatPassphrase')}
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
          {t(setup ? 'app.lock.setAndUnlock' : login ? 'app.lock.signIn' : 'app.lock.unlock')}
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
  const { t } = useWords();
  return (
    <div className="field lock-remember">
      <label>
        <input type="checkbox" name="remember" checked={checked} onChange={(e) => onChange(e.target.checked)} />{' '}
        {t('app.lock.remember')}
      </label>
      <small>{t('app.lock.rememberHint')}</small>
    </div>
  );
}
