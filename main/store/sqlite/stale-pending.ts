// How long a collection may wait for its outcome before reconciliation calls it stale_pending: the
// setting's bounds and default, defined once (the settings schema validates a change against them and
// defaults to it, and so do the reconciliation rules), and the stored setting as the incremental path
// reads it for every appended event.
import type { ReadDb } from './connection.js';
import { settingValue } from './settings.js';

/** The stalePendingAfterMs setting: at least a minute, at most 30 days, 30 minutes unless set. */
export const STALE_PENDING_AFTER_MS = { min: 60_000, max: 30 * 86_400_000, default: 30 * 60_000 } as const;

/**
 * The stored stalePendingAfterMs setting (one indexed read, so it is cheap for every appended event and
 * follows a changed setting at once). A missing, unreadable or out-of-range value: the default, as the
 * settings module does.
 */
export function storedStalePendingAfterMs(db: ReadDb): number {
  const raw = settingValue(db, 'stalePendingAfterMs');
  try {
    const v: unknown = raw === undefined ? undefined : JSON.parse(raw);
    if (
      typeof v === 'number' &&
      Number.isInteger(v) &&
      v >= STALE_PENDING_AFTER_MS.min &&
      v <= STALE_PENDING_AFTER_MS.max
    )
      return v;
  } catch {
    /* an unreadable setting: the default, as the settings module does */
  }
  return STALE_PENDING_AFTER_MS.default;
}
