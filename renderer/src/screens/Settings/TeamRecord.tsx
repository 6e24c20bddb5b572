// What this desk knows of the team record, in Settings > Team: its hash chain as checked (verified
// through seq N, or the alarm), the last time the record went back in time, and whether notifications
// from the team database reach this desk.
import type { TeamRollbackState } from '../../../../main/team/chain-words.shared.js';
import { chainWords, rollbackWords } from '../../../../main/team/chain-words.shared.js';
import { notificationsExplainedWords } from '../../../../main/team/notify-words.shared.js';
import { useAppStatus } from '../../hooks.js';
import { useWords } from '../../words/index.js';

/** The team record's hash chain as this desk checked it: verified through seq N, or the alarm. */
export function RecordCheck() {
  const team = useAppStatus().status?.team;
  const { t, say } = useWords();
  const chain = team?.chain;
  if (!chain) return null;
  const words = chainWords(chain);
  return (
    <>
      {words.alarm ? (
        <p role="alert" className="badge err" data-testid="team-record-check">
          {say(words.words)}
        </p>
      ) : (
        <p className="as-of" data-testid="team-record-check">
          {say(words.words)}
          {chain.recheckedAt !== null ? ` ${t('settings.record.rechecked', { at: chain.recheckedAt })}` : ''}
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
  const { t, rich, say } = useWords();
  const head = {
    foundAt: r.foundAt,
    seq: r.previousHead.seq,
    hash: (
      <span className="mono" translate="no">
        {r.previousHead.hash.slice(0, 16)}…
      </span>
    ),
  };
  return (
    <section className="team-rollback" aria-labelledby="team-rollback-title" data-testid="team-rollback">
      <h3 id="team-rollback-title">{t('settings.record.wentBack')}</h3>
      <p role="status" className={r.phase === 'restoring' || r.unrestoredCount ? 'badge warn' : undefined}>
        {say(words.words)}
      </p>
      <p className="as-of">
        {r.rebasedAt !== null
          ? rich('settings.record.foundRebased', { ...head, rebasedAt: r.rebasedAt })
          : rich('settings.record.found', head)}
      </p>
      {r.unrestoredCount > 0 && <NotPutBack rollback={r} />}
    </section>
  );
}

/** The lost events nobody put back, by reference and seq (the first ones, when there are many). */
function NotPutBack({ rollback: r }: { rollback: TeamRollbackState }) {
  const { t, f } = useWords();
  return (
    <table className="table" aria-label={t('settings.record.lost')}>
      <caption>
        {t('settings.record.lostCaption', { n: r.unrestoredCount })}
        {r.unrestoredCount > r.unrestored.length
          ? ` ${t('settings.record.firstShown', { shown: r.unrestored.length })}`
          : ''}
      </caption>
      <thead>
        <tr>
          <th scope="col">{t('settings.record.col.reference')}</th>
          <th scope="col">{t('settings.record.col.seq')}</th>
          <th scope="col">{t('settings.record.col.event')}</th>
          <th scope="col">{t('settings.record.col.why')}</th>
        </tr>
      </thead>
      <tbody>
        {r.unrestored.map((x) => (
          <tr key={x.eventKey}>
            <td className="mono" translate="no">
              {x.reference}
            </td>
            <td>{x.seq === null ? t('settings.record.notKnown') : f.number(x.seq)}</td>
            {/* The event as the record names it, and why it could not be put back, as the sync said it. */}
            <td translate="no">
              {x.source} · {x.kind.replace(/_/g, ' ')}
            </td>
            <td translate="no">{x.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Whether notifications from the team database were proven to reach this desk; if not, the fix. */
export function NotificationsCheck() {
  const n = useAppStatus().status?.team?.notifications;
  const { t, say } = useWords();
  if (!n) return null;
  return (
    <p className={n.arriving === false ? 'badge warn' : 'as-of'} data-testid="team-notifications-check">
      {say(notificationsExplainedWords(n))}
      {n.arriving !== null && n.checkedAt !== null ? ` ${t('settings.record.checked', { at: n.checkedAt })}` : ''}
    </p>
  );
}
