// The team's operators, and for admins the changes: disable (after a question), enable and re-role.
// Hiding the controls from non-admins is only a courtesy: PostgreSQL refuses their changes whatever this
// shows, and that refusal is shown as it comes back.
import { useState } from 'react';
import type { TeamMe, TeamOperatorRow } from '../../../../main/ipc/contract/team.js';
import { TEAM_ROLES, type TeamRole } from '../../../../main/team/roles.shared.js';
import { useWords } from '../../words/index.js';
import { words, type Words } from '../../../../main/words/words.shared.js';
import { useDeskAction } from '../../hooks.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { EmptyState, ErrorBanner } from '../../ui/index.js';
import { operatorStatus } from './team-form.js';

/** Disable, enable and re-role, each saying what it did (then reading the list again) or why it was not done. */
function useOperatorChanges(reload: () => Promise<void>) {
  const disable = useDeskAction('team.operators.disable');
  const enable = useDeskAction('team.operators.enable');
  const setRole = useDeskAction('team.operators.setRole');
  const [done, setDone] = useState<Words | null>(null);
  const after = async (r: unknown, message: Words) => {
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
      void disable.run({ login }).then((r) => after(r, words('settings.team.disabled', { login }))),
    enable: (login: string) => {
      clearMessages();
      void enable.run({ login }).then((r) => after(r, words('settings.team.enabled', { login })));
    },
    setRole: (login: string, role: TeamRole) => {
      clearMessages();
      void setRole
        .run({ login, role })
        .then((r) => after(r, words('settings.team.roleSet', { login, roleId: `team.role.${role}` })));
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
  const { t, say } = useWords();

  if (rows.length === 0)
    return (
      <EmptyState title={t('settings.team.noOperatorsTitle')}>{admin ? t('settings.team.addFirst') : null}</EmptyState>
    );
  return (
    <>
      <ErrorBanner error={changes.error} title={t('settings.team.notMade')} />
      {changes.done && (
        <p role="status" className="badge ok">
          {say(changes.done)}
        </p>
      )}
      <table className="table team-operators" aria-label={t('settings.team.operators')}>
        <thead>
          <tr>
            <th scope="col">{t('settings.team.col.login')}</th>
            <th scope="col">{t('settings.team.col.name')}</th>
            <th scope="col">{t('settings.team.col.role')}</th>
            <th scope="col">{t('settings.team.col.status')}</th>
            {admin && <th scope="col">{t('settings.team.col.actions')}</th>}
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
  const { t } = useWords();
  return (
    <tr>
      <td className="mono">
        <span translate="no">{row.login}</span>
        {self ? ` ${t('settings.team.you')}` : ''}
      </td>
      <td translate="no">{row.displayName}</td>
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
          t(`team.role.${row.role}`)
        )}
      </td>
      <td>
        <span className={enabled ? 'badge ok' : 'badge off'}>
          {t(enabled ? 'settings.team.statusEnabled' : 'settings.team.statusDisabled')}
        </span>
        {!enabled && row.disabledAt !== null && (
          <span className="as-of"> {t('settings.team.since', { at: row.disabledAt })}</span>
        )}
      </td>
      {admin && (
        <td>
          {self ? (
            <span className="as-of">{t('settings.team.notYourself')}</span>
          ) : enabled ? (
            <button
              type="button"
              className="danger"
              aria-label={t('settings.team.disableLogin', { login: row.login })}
              disabled={changes.pending.disable}
              onClick={onDisable}
            >
              {t('settings.team.disable')}
            </button>
          ) : (
            <button
              type="button"
              aria-label={t('settings.team.enableLogin', { login: row.login })}
              disabled={changes.pending.enable}
              onClick={() => changes.enable(row.login)}
            >
              {t('settings.team.enable')}
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
  const { t } = useWords();
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (role !== row.role) onChange(role);
      }}
    >
      <select
        aria-label={t('settings.team.roleOf', { login: row.login })}
        value={role}
        onChange={(e) => setRole(e.target.value as TeamRole)}
      >
        {TEAM_ROLES.map((r) => (
          <option key={r} value={r}>
            {t(`team.role.${r}`)}
          </option>
        ))}
      </select>
      <button
        type="submit"
        aria-label={t('settings.team.changeRoleOf', { login: row.login })}
        disabled={pending || role === row.role}
      >
        {t('settings.team.changeRole')}
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
  const { t } = useWords();
  return (
    <ConfirmDialog
      open={operator !== null}
      title={t('settings.team.disableTitle', { login: operator?.login ?? '' })}
      confirmLabel={t('settings.team.disable')}
      onCancel={onCancel}
      onConfirm={() => {
        if (operator) onConfirm(operator);
        else onCancel();
      }}
    >
      {operator && <p>{t('settings.team.disableWhat', { name: operator.displayName, login: operator.login })}</p>}
    </ConfirmDialog>
  );
}
