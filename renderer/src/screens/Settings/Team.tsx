// Team: who is signed in, what this desk knows of the team record (TeamRecord.tsx), the team's operators
// (Operators.tsx) and, for admins, adding one (AddOperator.tsx). Both reads follow the team: any
// operator's change, made at this desk or another (or the CLI), is pushed as team.operatorsChanged and the
// list and "signed in as" read again.
import type { TeamMe } from '../../../../main/ipc/contract/team.js';
import type { ReactNode } from 'react';
import { useWords } from '../../words/index.js';
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
  const { t } = useWords();
  return (
    <Section title={t('settings.team')}>
      <ErrorBanner error={me.error} title={t('settings.team.meFailed')} />
      {me.loading && <Loading text={t('settings.team.meLoading')} />}
      {me.data && <WhoAmI me={me.data} />}
      <RecordCheck />
      <NotificationsCheck />
      <ErrorBanner
        error={list.error}
        title={t('settings.team.listFailed')}
        action={
          <button type="button" onClick={() => void list.reload()}>
            {t('settings.team.retry')}
          </button>
        }
      />
      {list.loading && <Loading text={t('settings.team.listLoading')} />}
      {list.data && <OperatorsTable rows={list.data} me={me.data} reload={reload} />}
      {me.data?.isAdmin ? <AddOperatorForm reload={reload} /> : me.data ? <WhoMay action="manageOperators" /> : null}
    </Section>
  );
}

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

function WhoAmI({ me }: { me: TeamMe }) {
  const { t, rich } = useWords();
  const login = (
    <span className="mono" translate="no">
      {me.login}
    </span>
  );
  const role = t(`team.role.${me.role}`);
  return (
    <p aria-label={t('settings.team.signedInAs')}>
      {me.displayName
        ? rich('settings.team.whoAmIName', { login, name: me.displayName, role, b })
        : rich('settings.team.whoAmI', { login, role, b })}
    </p>
  );
}
