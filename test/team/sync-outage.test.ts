// PostgreSQL stopped while two desktops sync, and started again: both say they are offline, then
// catch up, with every event exactly once and the incremental reconciliation equal to a full
// recompute. This file runs a server of its own, so stopping it disturbs no other test file.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileAll } from '../../main/reconcile/reconcile.js';
import { appendEvents } from '../../main/team/events.js';
import { migrate } from '../../main/team/migrate.js';
import { openTeamPool } from '../../main/team/pool.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { callbackEvent, chargeOn, openDesk, reconciliationView, type Desk } from './sync-desk.js';
import { until } from '../support/wait.js';

let server: PgServerInfo;
let url: string;
const pools: pg.Pool[] = [];

function pgCtl(...args: string[]): void {
  const exe = path.join(server.binDir, 'pg_ctl');
  const data = path.join(server.dir, 'data');
  const full = ['-D', data, '-l', path.join(server.dir, 'server.log'), '-w', '-t', '60', ...args];
  const r =
    process.getuid?.() === 0
      ? spawnSync('runuser', ['-u', 'postgres', '--', exe, ...full], { encoding: 'utf8' })
      : spawnSync(exe, full, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pg_ctl ${args.join(' ')} failed: ${r.stderr}`);
}

function pool(): pg.Pool {
  const p = openTeamPool(url);
  pools.push(p);
  return p;
}

beforeAll(async () => {
  server = await startServer();
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE team_outage');
  await admin.end();
  url = serverUrl(server, 'team_outage');
  await migrate(pool());
}, 120_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  if (server) stopServerSync(server.dir, server.binDir);
});

async function teamState(p: pg.Pool): Promise<{ top: number; keys: string[] }> {
  const r = await p.query<{ event_key: string; seq: string }>('SELECT event_key, seq FROM team.events ORDER BY seq');
  return { top: r.rows.length ? Number(r.rows[r.rows.length - 1]!.seq) : 0, keys: r.rows.map((x) => x.event_key) };
}

const localKeys = (d: Desk) =>
  d.db.prepare('SELECT dedupe_key FROM collection_events ORDER BY dedupe_key').pluck().all() as string[];

describe('team sync through a PostgreSQL outage', () => {
  it('goes offline with a clear message, then catches up: every event once, reconciliation as a full recompute', async () => {
    const a = openDesk(pool(), { pollEveryMs: 200 });
    const b = openDesk(pool(), { pollEveryMs: 200 });
    const serve = pool();
    try {
      const intents = [];
      for (let i = 0; i < 10; i++) intents.push((await chargeOn(a)).intent);
      await appendEvents(
        serve,
        intents.slice(0, 5).map((t) => callbackEvent(t)),
      );
      // The last callbacks land right before the server goes away: some may be pulled, some not.
      await appendEvents(
        serve,
        intents.slice(5, 9).map((t, i) => callbackEvent(t, i % 2 ? 'FAILED' : 'COMPLETED')),
      );
      pgCtl('-m', 'fast', 'stop');

      for (const d of [a, b]) await until('offline status', () => !d.sync.status().online, 15_000, 10);
      expect(a.sync.status().error).toMatch(/^Offline: the team database cannot be reached/);
      await expect(b.sync.pullNow()).rejects.toThrow(/cannot be reached/);

      pgCtl('start');
      // Written after the outage, by the desktop and by serve.
      for (let i = 0; i < 3; i++) intents.push((await chargeOn(a)).intent);
      await appendEvents(serve, [callbackEvent(intents[9]!, 'CANCELLED'), callbackEvent(intents[11]!)]);

      const team = await teamState(serve);
      for (const d of [a, b])
        await until(
          'the desktop to catch up',
          () => d.sync.status().online && d.sync.status().lastSeq === team.top,
          20_000,
          10,
        );
      const keys = [...team.keys].sort();
      expect(localKeys(a)).toEqual(keys);
      expect(localKeys(b)).toEqual(keys);
      expect(reconciliationView(b.db)).toEqual(reconciliationView(a.db));
      for (const d of [a, b]) {
        const incremental = reconciliationView(d.db);
        await reconcileAll(d.db);
        expect(reconciliationView(d.db)).toEqual(incremental);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 90_000);
});
