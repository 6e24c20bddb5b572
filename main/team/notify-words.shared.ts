// What a desk says about the team database's notifications (team/sync/notify-probe.ts), in one place for
// the status bar (main/app/status.ts), the notice at sign-in (main/app/team.ts), Settings, Team (renderer)
// and `connect` (main/cli/commands/connect.ts), as words every side renders.
import { english, words, type Words } from '../words/words.shared.js';

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

const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

/** The status bar's words while notifications do not arrive, or null while they do (or are not checked yet). */
export function notificationsWarningWords(n: TeamNotificationsState): Words | null {
  if (n.arriving !== false) return null;
  return words('team.notify.warning', { seconds: seconds(n.pullEveryMs) });
}

export function notificationsWarning(n: TeamNotificationsState): string | null {
  const w = notificationsWarningWords(n);
  return w && english(w);
}

/** The whole story, with the fix: the notice at sign-in, Settings, Team and `connect`. */
export function notificationsExplainedWords(n: TeamNotificationsState): Words {
  if (n.arriving === null) return words('team.notify.notChecked');
  if (n.arriving) return words('team.notify.arriving');
  return words('team.notify.notArriving', { seconds: seconds(n.pullEveryMs) });
}

export function notificationsExplained(n: TeamNotificationsState): string {
  return english(notificationsExplainedWords(n));
}
