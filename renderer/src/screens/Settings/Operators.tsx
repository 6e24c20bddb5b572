// The team's operators, and for admins the changes: disable (after a question), enable and re-role.
// Hiding the controls from non-admins is only a courtesy: PostgreSQL refuses their changes whatever this
// shows, and that refusal is shown as it comes back.
import { useState } from 'react';
import type { TeamMe, TeamOperatorRow } from '../../../../main/ipc/contract/team.js';
import { ROLE_LABEL, TEAM_ROLES, type TeamRole } from '../../../../main/team/roles.shared.js';
import { useDeskAction } from '../../hooks.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { formatDateTime } from '../../ui/format.js';
import { EmptyState, ErrorBanner } from '../../ui/index.js';
import { operatorStatus } from './team-form.js';

/** Disable, enable and re-role, each saying what it did (then reading the list again) or why it was not done. */
function useOperatorChanges(reload: () => Promise<void>) {
  const disable = useDeskAction('team.operators.disable');
  const enable = useDeskAction('team.operators.enable');
  const setRole = useDeskAction('team.operators.setRole');
  const [done, setDone] = useState<string | null>(null);
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
  return {
    done,
    error: disable.error ?? enable.error ?? setRole.error,
    pending: { disable: disable.pending, enable: enable.pending, setRole: setRole.pending },
    clearMessages,
    disable: (login: string) =>
      void disable.run({ login }).then((r) => after(r, `${login} is disabled and was signed out everywhere.`)),
    enable: (login: string) => {
      clearMessages();
      void enable.run({ login }).then((r) => after(r, `${login} can sign in again.`));
    },
    setRole: (login: string, role: TeamRole) => {
      clearMessages();
      void setRole.run({ login, role }).then((r) => after(r, `${login} is now ${ROLE_LABEL[role]}.`));
    },
  };
}

type OperatorChanges = ReturnType<typeof useOperatorChanges>;

export function OperatorsTable({
  rows,
  me,
  reload,
}: {
  rows: TeamOperatorRow[];
  me: TeamMe | undefined;
  reload: () => Promise<void>;
}) {
  const changes = useOperatorChanges(reload);
  const [confirming, setConfirming] = useState<TeamOperatorRow | null>(null);
  const admin = me?.isAdmin ?? false;

  if (rows.length === 0)
    return <EmptyState title="No operators yet">{admin ? 'Add the first one below.' : null}</EmptyState>;
  return (
    <>
      <ErrorBanner error={changes.error} title="The change was not made" />
      {changes.done && (
        <p role="status" className="badge ok">
          {changes.done}
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
          {rows.map((row) => (
            <OperatorRow
              key={row.login}
              row={row}
              self={row.login === me?.login}
              admin={admin}
              changes={changes}
              onDisable={() => {
                changes.clearMessages();
                setConfirming(row);
              }}
            />
          ))}
        </tbody>
      </table>
      <DisableDialog
        operator={confirming}
        onCancel={() => setConfirming(null)}
        onConfirm={(row) => {
          setConfirming(null);
          changes.disable(row.login);
        }}
      />
    </>
  );
}

function OperatorRow({
  row,
  self,
  admin,
  changes,
  onDisable,
}: {
  row: TeamOperatorRow;
  /** The operator signed in here. */
  self: boolean;
  admin: boolean;
  changes: OperatorChanges;
  onDisable: () => void;
}) {
  const enabled = operatorStatus(row) === 'enabled';
  return (
    <tr>
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
            pending={changes.pending.setRole}
            onChange={(role) => changes.setRole(row.login, role)}
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
              disabled={changes.pending.disable}
              onClick={onDisable}
            >
              Disable
            </button>
          ) : (
            <button
              type="button"
              aria-label={`Enable ${row.login}`}
              disabled={changes.pending.enable}
              onClick={() => changes.enable(row.login)}
            >
              Enable
            </button>
          )}
        </td>
      )}
    </tr>
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

/** "Disable X?": what it does (no sign-in, sessions end now) and that it can be undone. */
function DisableDialog({
  operator,
  onCancel,
  onConfirm,
}: {
  operator: TeamOperatorRow | null;
  onCancel: () => void;
  onConfirm: (row: TeamOperatorRow) => void;
}) {
  return (
    <ConfirmDialog
      open={operator !== null}
      title={`Disable ${operator?.login ?? ''}?`}
      confirmLabel="Disable"
      onCancel={onCancel}
      onConfirm={() => {
        if (operator) onConfirm(operator);
        else onCancel();
      }}
    >
      {operator && (
        <p>
          {operator.displayName} ({operator.login}) will not be able to sign in, and their open sessions end now. You
          can enable them again later.
        </p>
      )}
    </ConfirmDialog>
  );
}
