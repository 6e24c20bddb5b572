// What a team desk's window is told while it follows the team (issue 23): a pulled batch is one notice,
// not one per collection, through the real path (composeCore on a team profile, its sync pulling from a
// real PostgreSQL, main's events, the renderer push both shells use).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { composeCore, type Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { importServicePublicKey } from '../../main/settings/service-key.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import type { DeskEvents } from '../../main/ipc/contract/index.js';
import { appendEvents } from '../../main/team/events.js';
import { recordIntent } from '../../main/team/record.js';
import { forgetTeamKeys, storeTeamKeys } from './team-keychain.js';
import { fileTempDir, tempDir } from '../support/tmp.js';
import { event, teamFixture, type TeamFixture } from '../team/fixture.js';
import { newIntent } from '../team/sync-desk.js';
import { until } from '../support/wait.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-teampush-${process.pid}`;

let team: TeamFixture;
let sb: Sandbox;
let sandboxDir: string;
let deskUrl: string;
const cores: Core[] = [];
const logins: string[] = [];

beforeAll(async () => {
  team = await teamFixture();
  sandboxDir = fileTempDir('md-team-push-');
  sb = await startSandbox({ stateDir: sandboxDir, timeScale: 1000 });
  deskUrl = `postgres://${team.db.server.host}:${team.db.server.port}/${team.db.name}`;
  await storeTeamKeys(sb);
}, 120_000);

afterEach(async () => {
  while (cores.length) await cores.pop()!.close();
});

afterAll(async () => {
  await forgetTeamKeys(deskUrl, logins);
  await sb?.close();
  await team?.close();
});

async function signedInDesk(login: string): Promise<Core> {
  const dataDir = tempDir('md-team-push-desk-');
  const db = openProfileDatabase(dataDir, 'team');
  try {
    updateSettings(db, { profile: 'team', baseUrl: sb.baseUrl, teamDatabaseUrl: deskUrl, teamLogin: login });
    importServicePublicKey(db, dataDir, sb.servicePublicKeyPem);
  } finally {
    db.close();
  }
  writeActiveProfile(dataDir, 'team');
  const core = await composeCore({
    dataDir,
    logger: silentLogger(),
    receiver: false,
    lock: { checkEveryMs: 0 },
    teamSyncEveryMs: 100,
  });
  cores.push(core);
  await core.ready();
  await core.lock.unlock(team.password(login));
  return core;
}

const countCollections = (core: Core, status?: string) =>
  core.db
    .prepare(`SELECT count(*) FROM collections${status ? ' WHERE status = ?' : ''}`)
    .pluck()
    .get(...(status ? [status] : [])) as number;

describe('a team desk following the team', () => {
  it('a pulled batch of 450 events changing 150 collections is a notice per applied slice in main (not 150) and at most a few pushes to the window, naming the 150 with their new status', async () => {
    const login = await team.addOperator('support');
    logins.push(login);
    const writer = team.signIn(login);
    const core = await signedInDesk(login);
    await until('the sync is online', () => core.appStatus().connection === 'online', 20_000);

    // 150 collections the desk knows (their intents pulled, whatever the batches).
    const K = 150;
    const intents = Array.from({ length: K }, () => newIntent({ operator: login }));
    for (const intent of intents) await recordIntent(writer, intent);
    await until('the desk has the 150 collections', () => countCollections(core) === K, 20_000);
    await new Promise((r) => setTimeout(r, 600)); // the pushes those caused have gone out

    // What main says and what the window receives from now on.
    const notices: string[] = [];
    core.events.subscribe((e) => {
      if (e === 'collection.changed' || e === 'collections.changed') notices.push(e);
    });
    const pushes: DeskEvents['collections.updated'][] = [];
    const off = pushToRenderer(core.events, (e, p) => {
      if (e === 'collections.updated') pushes.push(p as DeskEvents['collections.updated']);
    });

    // Another desk's 3 answers per collection (450 events), written in one transaction: one pulled batch.
    const answers = intents.flatMap((i, n) =>
      [0, 1, 2].map((k) =>
        event({
          merchantReference: i.merchantReference,
          amountMinor: i.amountMinor,
          currency: i.currency,
          internalReference: `INT-${i.merchantReference}`,
          occurredAt: Date.now() + n * 3 + k,
        }),
      ),
    );
    await appendEvents(writer, answers);
    await until('the desk applied the 450 answers', () => countCollections(core, 'PENDING') === K, 20_000);
    await new Promise((r) => setTimeout(r, 600)); // a trailing push would have gone out

    // The desk applies what it pulls in slices of about 25 ms (sync/pull.ts): one notice per slice, never
    // one per collection, and the window gets them paced (at most 4 a second), merged.
    expect(notices.length).toBeGreaterThanOrEqual(1);
    expect(notices.length).toBeLessThanOrEqual(15);
    expect(new Set(notices)).toEqual(new Set(['collections.changed']));
    expect(pushes.length).toBeGreaterThanOrEqual(1);
    expect(pushes.length).toBeLessThanOrEqual(3);
    expect(pushes.every((p) => !p.many)).toBe(true);
    const last = new Map<string, string>();
    for (const p of pushes) for (const c of p.changed) last.set(c.reference, c.status);
    expect([...last.keys()].sort()).toEqual(intents.map((i) => i.merchantReference).sort());
    expect([...last.values()].every((st) => st === 'PENDING')).toBe(true);
    off();
  });
});
