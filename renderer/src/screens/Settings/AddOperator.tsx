// Adding an operator (admins only): login, name, role and an initial password typed twice, checked here
// first (team-form.ts) and again by main and PostgreSQL, whose refusal lands on the field it names.
import { useState, type FormEvent } from 'react';
import { TEAM_ROLES, type TeamRole } from '../../../../main/team/roles.shared.js';
import { useWords } from '../../words/index.js';
import type { Words } from '../../../../main/words/words.shared.js';
import { useDeskAction } from '../../hooks.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { fieldError } from './Section.js';
import { checkNewOperator, EMPTY_OPERATOR_FORM, type NewOperatorForm } from './team-form.js';

export function AddOperatorForm({ reload }: { reload: () => Promise<void> }) {
  const [form, setForm] = useState<NewOperatorForm>(EMPTY_OPERATOR_FORM);
  const [shown, setShown] = useState<Partial<Record<keyof NewOperatorForm, Words>>>({});
  const [added, setAdded] = useState<string | null>(null);
  const add = useDeskAction('team.operators.add');
  const { t, say } = useWords();
  const set = (k: keyof NewOperatorForm) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    setAdded(null);
  };
  const error = (k: keyof NewOperatorForm) => (shown[k] ? say(shown[k]) : fieldError(say, add.error, k));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAdded(null);
    const problems = checkNewOperator(form);
    setShown(problems);
    if (Object.keys(problems).length > 0) return;
    const login = form.login.trim();
    const r = await add.run({
      login,
      displayName: form.displayName.trim(),
      role: form.role as TeamRole,
      password: form.password,
    });
    if (r === undefined) return;
    setForm(EMPTY_OPERATOR_FORM); // the password leaves the page as soon as it is sent
    setAdded(login);
    await reload();
  };
  return (
    <form aria-label={t('settings.team.add')} onSubmit={(e) => void submit(e)} noValidate>
      <h3>{t('settings.team.add')}</h3>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <Field label={t('settings.team.login')} error={error('login')} hint={t('settings.team.loginHint')}>
          <input
            name="login"
            value={form.login}
            onChange={set('login')}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="none"
          />
        </Field>
        <Field label={t('settings.team.name')} error={error('displayName')}>
          <input name="displayName" value={form.displayName} onChange={set('displayName')} autoComplete="off" />
        </Field>
        <Field label={t('settings.team.role')} error={error('role')}>
          <select name="role" value={form.role} onChange={set('role')}>
            <option value="">{t('settings.team.choose')}</option>
            {TEAM_ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`team.role.${r}`)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <Field label={t('settings.team.password')} error={error('password')} hint={t('settings.team.passwordHint')}>
          <input
            name="password"
            type="password"
            value={form.password}
            onChange={set('password')}
            autoComplete="new-password"
          />
        </Field>
        <Field label={t('settings.team.passwordAgain')} error={error('passwordAgain')}>
          <input
            name="passwordAgain"
            type="password"
            value={form.passwordAgain}
            onChange={set('passwordAgain')}
            autoComplete="new-password"
          />
        </Field>
      </div>
      <ErrorBanner error={add.error && !add.error.field ? add.error : undefined} title={t('settings.team.addFailed')} />
      <div className="row save-row">
        <button type="submit" className="primary" disabled={add.pending}>
          {t('settings.team.add')}
        </button>
        {added && (
          <span role="status" className="badge ok">
            {t('settings.team.added', { login: added })}
          </span>
        )}
      </div>
    </form>
  );
}
