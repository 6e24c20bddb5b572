// The desk's operations and reads follow a profile switch: what a screen asks after the switch is done on
// the new profile's database, also by the work a desk keeps across calls (the full reconciliation run).
// Real SQLite files in a real data folder, composeCore as the app composes it (no network is reached:
// nothing polls and no charge is taken).
import { afterEach, describe, expect, it } from 'vitest';
import { composeCore, type Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { silentLogger } from '../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile, type Profile } from '../../main/settings/index.js';
import { insertCollection } from '../collections/helpers.js';
import { tempDir } from '../support/tmp.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** A profile's database with its base URL and `n` collections of its own. */
function profileWith(dataDir: string, profile: Profile, baseUrl: string, n: number): void {
  const db = openProfileDatabase(dataDir, profile);
  try {
    updateSettings(db, { profile, baseUrl });
    for (let i = 1; i <= n; i++) insertCollection(db, { reference: `MD-${profile.toUpperCase()}-${i}` });
  } finally {
    db.close();
  }
}

describe('the desk after a profile switch', () => {
  it("a full reconciliation run, the collections list and the summary are the new profile's", async () => {
    const dataDir = tempDir();
    profileWith(dataDir, 'sandbox', 'http://127.0.0.1:9', 3);
    profileWith(dataDir, 'live', 'https://payments.invalid', 1);
    writeActiveProfile(dataDir, 'sandbox');
    core = await composeCore({ dataDir, logger: silentLogger(), poll: false, receiver: false });
    const d = typedInvoke(createDispatcher(buildHandlers(core)));

    expect(value(await d('reconcile.run', { runId: 'before' }))).toMatchObject({ collections: 3 });
    expect(value(await d('collections.list', {})).total).toBe(3);

    value(await d('settings.update', { profile: 'live' }));
    expect(value(await d('app.info', {})).profile).toBe('live');
    expect(value(await d('collections.list', {})).rows.map((r) => r.merchantReference)).toEqual(['MD-LIVE-1']);
    expect(value(await d('reconcile.run', { runId: 'after' }))).toMatchObject({ collections: 1 });
    expect(value(await d('reconcile.summary', {})).collections).toBe(1);
  });
});
