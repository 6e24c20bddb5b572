// The stale-pending threshold: the settings screen accepts exactly the range reconciliation honours when
// it reads the stored setting for each appended event (one definition: store/sqlite/stale-pending.ts),
// and both fall back to the same default.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { STALE_PENDING_AFTER_MS, storedStalePendingAfterMs } from '../../main/store/sqlite/stale-pending.js';
import { defaultSettings, settingSchemas, updateSettings } from '../../main/settings/settings.js';
import { DEFAULT_STALE_PENDING_AFTER_MS } from '../../main/reconcile/classify.js';

function db(): Db {
  return openDatabase(path.join(tempDir(), 'md.sqlite'));
}

/** Stores a value as the settings table holds it (JSON text), bypassing the settings' own checks. */
function storeRaw(d: Db, value: string): void {
  d.prepare(
    "INSERT INTO settings (key, value, updated_at) VALUES ('stalePendingAfterMs', ?, 0) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(value);
}

describe('the stale-pending threshold', () => {
  it('the settings accept exactly its range and default to its default', () => {
    const { min, max } = STALE_PENDING_AFTER_MS;
    const schema = settingSchemas.stalePendingAfterMs;
    expect([min, max].map((v) => schema.safeParse(v).success)).toEqual([true, true]);
    expect([min - 1, max + 1].map((v) => schema.safeParse(v).success)).toEqual([false, false]);
    expect(defaultSettings().stalePendingAfterMs).toBe(STALE_PENDING_AFTER_MS.default);
    expect(DEFAULT_STALE_PENDING_AFTER_MS).toBe(STALE_PENDING_AFTER_MS.default);
  });

  it('reconciliation reads a saved value, and the default for none or one it would not accept', () => {
    const d = db();
    expect(storedStalePendingAfterMs(d)).toBe(STALE_PENDING_AFTER_MS.default);
    updateSettings(d, { stalePendingAfterMs: 5 * 60_000 });
    expect(storedStalePendingAfterMs(d)).toBe(5 * 60_000);
    for (const bad of [
      String(STALE_PENDING_AFTER_MS.min - 1),
      String(STALE_PENDING_AFTER_MS.max + 1),
      '90000.5',
      '"600000"',
      'not json',
    ]) {
      storeRaw(d, bad);
      expect(storedStalePendingAfterMs(d), bad).toBe(STALE_PENDING_AFTER_MS.default);
    }
    storeRaw(d, String(STALE_PENDING_AFTER_MS.max));
    expect(storedStalePendingAfterMs(d)).toBe(STALE_PENDING_AFTER_MS.max);
    d.close();
  });
});
