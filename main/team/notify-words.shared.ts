// What a desk says about the team database's notifications (team/sync/notify-probe.ts), in one place for
// the status bar (main/app/status.ts), the notice at sign-in (main/app/team.ts), Settings, Team (renderer)
// and `connect` (main/cli/commands/connect.ts): no imports, so every side can use it.

/** Whether notifications were proven to reach this desk, and how often it pulls meanwhile. */
export interface TeamNotificationsState {
  /**
   * true: a probe this desk sent through its pool came back on its listening connection; false: two did
   * not (a transaction-mode pool drops them); null: not checked yet.
   */
  arriving: boolean | null;
  /** When the last check ended (ms since the epoch), or null. */
  checkedAt: number | null;
  /** How often the desk pulls the team record now (ms): more often while notifications do not arrive. */
  pullEveryMs: number;
}

/** How often a desk pulls while notifications do not arrive: events still reach it within about 2 s. */
export const PULL_WITHOUT_NOTIFICATIONS_MS = 1_000;

/** The fix, for a person who runs the team database (docs/operations.md, "Poolers and notifications"). */
const NOTIFICATIONS_FIX =
  'connect this desk directly to PostgreSQL or through a session-mode pool (PgBouncer pool_mode = session)';

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;

/** The status bar's words while notifications do not arrive, or null while they do (or are not checked yet). */
export function notificationsWarning(n: TeamNotificationsState): string | null {
  if (n.arriving !== false) return null;
  return `Notifications are not arriving: a transaction-mode pool? This desk catches up every ${seconds(n.pullEveryMs)}`;
}

/** The whole story, with the fix: the notice at sign-in, Settings, Team and `connect`. */
export function notificationsExplained(n: TeamNotificationsState): string {
  if (n.arriving === null) return 'Notifications from the team database: not checked yet.';
  if (n.arriving) return 'Notifications from the team database arrive: other desks’ work shows here at once.';
  return (
    'Notifications from the team database do not reach this desk: a pool in transaction mode (PgBouncer with ' +
    'pool_mode = transaction) hands the connection a desk listens on to other clients between transactions. ' +
    `This desk catches up every ${seconds(n.pullEveryMs)} instead. To fix it, ${NOTIFICATIONS_FIX}.`
  );
}
