// Adding an operator (admins only): login, name, role and an initial password typed twice, checked here
// first (team-form.ts) and again by main and PostgreSQL, whose refusal lands on the field it names.
import { useState, type FormEvent } from 'react';
import { ROLE_LABEL, TEAM_ROLES, type TeamRole } from '../../../../main/team/roles.shared.js';
import { useDeskAction } from '../../hooks.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { fieldError } from './Section.js';
import { checkNewOperator, EMPTY_OPERATOR_FORM, type NewOperatorForm } from './team-form.js';

export function AddOperatorForm({ reload }: { reload: () => Promise<void> }) {
  const [form, setForm] = useState<NewOperatorForm>(EMPTY_OPERATOR_FORM);
  const [shown, setShown] = useState<Partial<Record<keyof NewOperatorForm, string>>>({});
  const [added, setAdded] = useState<string | null>(null);
  const add = useDeskAction('team.operators.add');
  const set = (k: keyof NewOperatorForm) => (e: { target: { value: string } }) => {
    setForm({ ...form, [k]: e.target.value });
    setAdded(null);
  };
  const error = (k: keyof NewOperatorForm) => shown[k] ?? fieldError(add.error, k);
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
    setAdded(`Added ${login}. Give them their password in person; they can change it after signing in.`);
    await reload();
  };
  return (
    <form aria-label="Add operator" onSubmit={(e) => void submit(e)} noValidate>
      <h3>Add operator</h3>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <Field label="Login" error={error('login')} hint="Their PostgreSQL login, e.g. amina_k">
          <input
            name="login"
            value={form.login}
            onChange={set('login')}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="none"
          />
        </Field>
        <Field label="Name" error={error('displayName')}>
          <input name="displayName" value={form.displayName} onChange={set('displayName')} autoComplete="off" />
        </Field>
        <Field label="Role" error={error('role')}>
          <select name="role" value={form.role} onChange={set('role')}>
            <option value="">Choose…</option>
            {TEAM_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <Field label="Initial password" error={error('password')} hint="At least 12 characters.">
          <input
            name="password"
            type="password"
            value={form.password}
            onChange={set('password')}
            autoComplete="new-password"
          />
        </Field>
        <Field label="Initial password again" error={error('passwordAgain')}>
          <input
            name="passwordAgain"
            type="password"
            value={form.passwordAgain}
            onChange={set('passwordAgain')}
            autoComplete="new-password"
          />
        </Field>
      </div>
      <ErrorBanner error={add.error && !add.error.field ? add.error : undefined} title="Could not add the operator" />
      <div className="row save-row">
        <button type="submit" className="primary" disabled={add.pending}>
          Add operator
        </button>
        {added && (
          <span role="status" className="badge ok">
            {added}
          </span>
        )}
      </div>
    </form>
  );
}
