// Team: who is signed in, the team's operators, and (for admins) adding, disabling, enabling and
// re-roling them. Hiding the controls from non-admins is only a courtesy: PostgreSQL refuses their
// changes whatever this screen shows, and that refusal is shown as it comes back. Both reads follow the
// team: any operator's change, made at this desk or another (or the CLI), is pushed as
// team.operatorsChanged and the list and "signed in as" read again.
import { useState, type FormEvent } from 'react';
import type { TeamMe, TeamOperatorRow } from '../../../../main/ipc/contract/team.js';
import { ROLE_LABEL, TEAM_ROLES, type TeamRole } from '../../../../main/team/roles.shared.js';
import { WhoMay } from '../../role.js';
import { useDeskAction, useDeskEvent, useDeskQuery } from '../../hooks.js';
import type { AppStatus } from '../../../../main/ipc/contract/app.js';
import { chainWords, rollbackWords, type TeamRollbackState } from '../../../../main/team/chain-words.shared.js';
import { notificationsExplained } from '../../../../main/team/notify-words.shared.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { formatDateTime } from '../../ui/format.js';
import { EmptyState, ErrorBanner, Field, Loading } from '../../ui/index.js';
import { Section, fieldError } from './Section.js';
import { checkNewOperator, EMPTY_OPERATOR_FORM, operatorStatus, type NewOperatorForm } from './team-form.js';

const FOLLOW_OPERATORS = { refreshOn: ['team.operatorsChanged' as const] };

export function TeamSection() {
  const me = useDeskQuery('team.me', {}, FOLLOW_OPERATORS);
  const list = useDeskQuery('team.operators.list', {}, FOLLOW_OPERATORS);
  const reload = async () => {
    await Promise.all([me.reload(), list.reload()]);
  };
  return (
    <Section title="Team">
      <ErrorBanner error={me.error} title="Could not read who is signed in" />
      {me.loading && <Loading what="your operator" />}
      {me.data && <WhoAmI me={me.data} />}
      <RecordCheck />
      <NotificationsCheck />
      <ErrorBanner
        error={list.error}
        title="Could not read the operators"
        action={
          <button type="button" onClick={() => void list.reload()}>
            Retry
          </button>
        }
      />
      {list.loading && <Loading what="operators" />}
      {list.data && <OperatorsTable rows={list.data} me={me.data} reload={reload} />}
      {me.data?.isAdmin ? <AddOperatorForm reload={reload} /> : me.data ? <WhoMay action="manageOperators" /> : null}
    </Section>
  );
}

/** The team record's hash chain as this desk checked it: verified through seq N, or the alarm. */
function RecordCheck() {
  const q = useDeskQuery('app.status', {});
  const [pushed, setPushed] = useState<AppStatus>();
  useDeskEvent('app.status', setPushed);
  const team = (pushed ?? q.data)?.team;
  const chain = team?.chain;
  if (!chain) return null;
  const words = chainWords(chain);
  return (
    <>
      {words.alarm ? (
        <p role="alert" className="badge err" data-testid="team-record-check">
          {words.text}
        </p>
      ) : (
        <p className="as-of" data-testid="team-record-check">
          {words.text}
          {chain.recheckedAt !== null ? ` (whole record re-checked ${formatDateTime(chain.recheckedAt)})` : ''}
        </p>
      )}
      {team.rollback && <RecordWentBack rollback={team.rollback} />}
    </>
  );
}

/**
 * The last time the team record went back in time (a failover, a restore from backup): what was lost,
 * what this desk put back, the head it had verified (kept as evidence), and, by reference and seq, the
 * events it held that nobody has put back.
 */
function RecordWentBack({ rollback: r }: { rollback: TeamRollbackState }) {
  const words = rollbackWords(r);
  return (
    <section className="team-rollback" aria-labelledby="team-rollback-title" data-testid="team-rollback">
      <h3 id="team-rollback-title">Team record went back</h3>
      <p role="status" className={r.phase === 'restoring' || r.unrestoredCount ? 'badge warn' : undefined}>
        {words.text}
      </p>
      <p className="as-of">
        Found {formatDateTime(r.foundAt)}. The head this desk had verified, kept as evidence: seq{' '}
        {r.previousHead.seq.toLocaleString('en')}, hash{' '}
        <span className="mono">{r.previousHead.hash.slice(0, 16)}…</span>
        {r.rebasedAt !== null ? `; following the record again since ${formatDateTime(r.rebasedAt)}.` : '.'}
      </p>
      {r.unrestoredCount > 0 && (
        <table className="table" aria-label="Lost events not put back">
          <caption>
            {r.unrestoredCount === 1
              ? 'One event the team database lost that this desk could not put back'
              : `${r.unrestoredCount.toLocaleString('en')} events the team database lost that this desk could not put back`}
            {r.unrestoredCount > r.unrestored.length
              ? ` (the first ${r.unrestored.length} shown; the log has them all)`
              : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Seq</th>
              <th scope="col">Event</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {r.unrestored.map((x) => (
              <tr key={x.eventKey}>
                <td className="mono">{x.reference}</td>
                <td>{x.seq === null ? 'not known' : x.seq.toLocaleString('en')}</td>
                <td>
                  {x.source} · {x.kind.replace(/_/g, ' ')}
                </td>
                <td>{x.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Whether notifications from the team database were proven to reach this desk; if not, the fix. */
function NotificationsCheck() {
  const q = useDeskQuery('app.status', {});
  const [pushed, setPushed] = useState<AppStatus>();
  useDeskEvent('app.status', setPushed);
  const n = (pushed ?? q.data)?.team?.notifications;
  if (!n) return null;
  return (
    <p className={n.arriving === false ? 'badge warn' : 'as-of'} data-testid="team-notifications-check">
      {notificationsExplained(n)}
      {n.arriving !== null && n.checkedAt !== null ? ` (checked ${formatDateTime(n.checkedAt)})` : ''}
    </p>
  );
}

function WhoAmI({ me }: { me: TeamMe }) {
  return (
    <p aria-label="Signed in as">
      Signed in as <span className="mono">{me.login}</span>
      {me.displayName ? ` (${me.displayName})` : ''}, role <strong>{ROLE_LABEL[me.role]}</strong>
    </p>
  );
}

function OperatorsTable({
  rows,
  me,
  reload,
}: {
  rows: TeamOperatorRow[];
  me: TeamMe | undefined;
  reload: () => Promise<void>;
}) {
  const disable = useDeskAction('team.operators.disable');
  const enable = useDeskAction('team.operators.enable');
  const setRole = useDeskAction('team.operators.setRole');
  const [confirming, setConfirming] = useState<TeamOperatorRow | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const admin = me?.isAdmin ?? false;
  const error = disable.error ?? enable.error ?? setRole.error;
  const after = async (r: unknown, message: string) => {
    if (r === undefined) return; // the action's error is shown
    setDone(message);
    await reload();
  };
  const clearMessages = () => {
    setDone(null);
    disable.clearError();
    enable.clearError();
    setRole.clearError();
  };

  if (rows.length === 0)
    return <EmptyState title="No operators yet">{admin ? 'Add the first one below.' : null}</EmptyState>;
  return (
    <>
      <ErrorBanner error={error} title="The change was not made" />
      {done && (
        <p role="status" className="badge ok">
          {done}
        </p>
      )}
      <table className="table team-operators" aria-label="Operators">
        <thead>
          <tr>
            <th scope="col">Login</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const self = row.login === me?.login;
            const enabled = operatorStatus(row) === 'enabled';
            return (
              <tr key={row.login}>
                <td className="mono">
                  {row.login}
                  {self ? ' (you)' : ''}
                </td>
                <td>{row.displayName}</td>
                <td>
                  {admin && !self ? (
                    <RoleChanger
                      // A new role read from the team starts the picker again from it.
                      key={row.role}
                      row={row}
                      pending={setRole.pending}
                      onChange={(role) => {
                        clearMessages();
                        void setRole
                          .run({ login: row.login, role })
                          .then((r) => after(r, `${row.login} is now ${ROLE_LABEL[role]}.`));
                      }}
                    />
                  ) : (
                    ROLE_LABEL[row.role]
                  )}
                </td>
                <td>
                  <span className={enabled ? 'badge ok' : 'badge off'}>{enabled ? 'Enabled' : 'Disabled'}</span>
                  {!enabled && <span className="as-of"> since {formatDateTime(row.disabledAt)}</span>}
                </td>
                {admin && (
                  <td>
                    {self ? (
                      <span className="as-of">You cannot disable yourself here.</span>
                    ) : enabled ? (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Disable ${row.login}`}
                        disabled={disable.pending}
                        onClick={() => {
                          clearMessages();
                          setConfirming(row);
                        }}
                      >
                        Disable
                      </button>
                    ) : (
                      <button
                        type="button"
                        aria-label={`Enable ${row.login}`}
                        disabled={enable.pending}
                        onClick={() => {
                          clearMessages();
                          void enable
                            .run({ login: row.login })
                            .then((r) => after(r, `${row.login} can sign in again.`));
                        }}
                      >
                        Enable
                      </button>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <ConfirmDialog
        open={confirming !== null}
        title={`Disable ${confirming?.login ?? ''}?`}
        confirmLabel="Disable"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          const row = confirming;
          setConfirming(null);
          if (!row) return;
          void disable
            .run({ login: row.login })
            .then((r) => after(r, `${row.login} is disabled and was signed out everywhere.`));
        }}
      >
        {confirming && (
          <p>
            {confirming.displayName} ({confirming.login}) will not be able to sign in, and their open sessions end now.
            You can enable them again later.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}

/** A role picker with its own Change button, so moving through the options with the keyboard changes nothing. */
function RoleChanger({
  row,
  pending,
  onChange,
}: {
  row: TeamOperatorRow;
  pending: boolean;
  onChange: (role: TeamRole) => void;
}) {
  const [role, setRole] = useState<TeamRole>(row.role);
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (role !== row.role) onChange(role);
      }}
    >
      <select aria-label={`Role of ${row.login}`} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
        {TEAM_ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABEL[r]}
          </option>
        ))}
      </select>
      <button type="submit" aria-label={`Change the role of ${row.login}`} disabled={pending || role === row.role}>
        Change role
      </button>
    </form>
  );
}

function AddOperatorForm({ reload }: { reload: () => Promise<void> }) {
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
