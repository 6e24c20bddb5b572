// Team: who is signed in, what this desk knows of the team record (TeamRecord.tsx), the team's operators
// (Operators.tsx) and, for admins, adding one (AddOperator.tsx). Both reads follow the team: any
// operator's change, made at this desk or another (or the CLI), is pushed as team.operatorsChanged and the
// list and "signed in as" read again.
import type { TeamMe } from '../../../../main/ipc/contract/team.js';
import { ROLE_LABEL } from '../../../../main/team/roles.shared.js';
import { WhoMay } from '../../role.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading } from '../../ui/index.js';
import { Section } from './Section.js';
import { NotificationsCheck, RecordCheck } from './TeamRecord.js';
import { OperatorsTable } from './Operators.js';
import { AddOperatorForm } from './AddOperator.js';

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

function WhoAmI({ me }: { me: TeamMe }) {
  return (
    <p aria-label="Signed in as">
      Signed in as <span className="mono">{me.login}</span>
      {me.displayName ? ` (${me.displayName})` : ''}, role <strong>{ROLE_LABEL[me.role]}</strong>
    </p>
  );
}
