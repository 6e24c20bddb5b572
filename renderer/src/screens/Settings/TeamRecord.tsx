// What this desk knows of the team record, in Settings > Team: its hash chain as checked (verified
// through seq N, or the alarm), the last time the record went back in time, and whether notifications
// from the team database reach this desk.
import type { TeamRollbackState } from '../../../../main/team/chain-words.shared.js';
import { chainWords, rollbackWords } from '../../../../main/team/chain-words.shared.js';
import { notificationsExplained } from '../../../../main/team/notify-words.shared.js';
import { useAppStatus } from '../../hooks.js';
import { formatDateTime } from '../../ui/format.js';

/** The team record's hash chain as this desk checked it: verified through seq N, or the alarm. */
export function RecordCheck() {
  const team = useAppStatus().status?.team;
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
      {r.unrestoredCount > 0 && <NotPutBack rollback={r} />}
    </section>
  );
}

/** The lost events nobody put back, by reference and seq (the first ones, when there are many). */
function NotPutBack({ rollback: r }: { rollback: TeamRollbackState }) {
  return (
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
  );
}

/** Whether notifications from the team database were proven to reach this desk; if not, the fix. */
export function NotificationsCheck() {
  const n = useAppStatus().status?.team?.notifications;
  if (!n) return null;
  return (
    <p className={n.arriving === false ? 'badge warn' : 'as-of'} data-testid="team-notifications-check">
      {notificationsExplained(n)}
      {n.arriving !== null && n.checkedAt !== null ? ` (checked ${formatDateTime(n.checkedAt)})` : ''}
    </p>
  );
}
