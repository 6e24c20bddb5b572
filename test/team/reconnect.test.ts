// Back quickly after an outage (issue 29): PostgreSQL is away for about 20 s (a failover that took a
// while, a restart after an upgrade), then back on the same port. A signed-in desk, its outbox and serve
// (its callback writer and its poller) must be back within 2 s of the database, however long it was
// away: a back-off grown to 15 s while nobody answered would keep them away up to 15 s longer. This file
// runs a server of its own, so stopping it disturbs no other test file.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { silentLogger } from '../../main/log/index.js';
import { systemClock } from '../../main/clock.js';
import { startServe, type RunningServe } from '../../main/serve/server.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordIntent, withTeamKey } from '../../main/team/record.js';
import { startOutboxPush } from '../../main/team/sync/push.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { signedCallback } from '../serve/harness.js';
import { newIntent, openDesk, quietLogger } from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

const DB = 'team_reconnect';
const OUTAGE_MS = 20_000;
let server: PgServerInfo;
let owner: pg.Pool;
let sb: Sandbox;
let dir: string;
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

async function login(role: 'support' | 'receiver'): Promise<string> {
  const name = `${role}_reconnect`;
  const password = `pw-${role}-reconnect-1`;
  await addOperator({ pool: owner }, { login: name, role, password, displayName: role });
  return serverUrl(server, DB, name, password);
}

function pool(url: string): pg.Pool {
  const p = openTeamPool(url, { onIdleError: () => undefined });
  pools.push(p);
  return p;
}

/** Polls `ok` (which may fail while the database is away) until it holds or `deadline` (ms since the epoch) passes. */
async function by(deadline: number, what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  for (;;) {
    if (await Promise.resolve(ok()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not by the deadline: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  dir = fileTempDir('md-reconnect-');
  [server, sb] = await Promise.all([startServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  owner = pool(serverUrl(server, DB));
  await migrate(owner);
}, 120_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  if (server) stopServerSync(server.dir, server.binDir);
  await sb?.close();
});

describe('back within 2 s of the team database after a 20 s outage', () => {
  it('a desk is online again, its outbox sent, and serve stores callbacks and the poll it made meanwhile', async () => {
    const support = pool(await login('support'));
    const receiverUrl = await login('receiver');
    const desk = openDesk(support, { pollEveryMs: 5_000 });
    // The desk's outbox, on its own (not woken by the pull coming back): what the service answered it.
    const push = startOutboxPush({ pool: support, db: desk.db, clock: systemClock, logger: quietLogger });
    let serve: RunningServe | null = null;
    try {
      await by(Date.now() + 20_000, 'the desk is online', () => desk.sync.status().online);
      const intent = newIntent();
      await recordIntent(support, intent);
      const collectionId = saveIntentCollection(ledger, desk.db, intent);

      pgCtl('-m', 'fast', 'stop');
      const stopped = Date.now();
      await by(stopped + 15_000, 'the desk says it is offline', () => !desk.sync.status().online);
      // Meanwhile the service answered the desk's charge: stored on the desk, waiting in its outbox.
      const answered = withTeamKey<NewEvent>({
        collectionId,
        merchantReference: intent.merchantReference,
        source: 'initiate',
        kind: 'initialize_accepted',
        status: 'PENDING',
        receivedAt: Date.now(),
        signature: 'not_applicable',
        internalReference: `INT-${intent.merchantReference}`,
        paymentUrl: `https://pay.example.invalid/${intent.merchantReference}`,
      });
      ledger.append(desk.db, answered, { outbox: true });
      push.kick();
      // serve starts while the database is away (a server booting before PostgreSQL): its first poll of
      // the service's balances cannot be written yet.
      serve = await startServe({
        databaseUrl: receiverUrl,
        host: '127.0.0.1',
        port: 0,
        verification: { signingKey: sb.signingKey },
        poll: {
          baseUrl: sb.baseUrl,
          keys: { publicKey: sb.publicKey, secretKey: sb.secretKey },
          intervals: { balancesMs: 60_000, providersMs: 900_000 },
        },
        dataDir: path.join(dir, 'serve'),
        logger: silentLogger(),
      });
      const down = await fetch(`${serve.url}`, {
        method: 'POST',
        ...signedCallback(sb.signingKey, { ref: intent.merchantReference }),
      });
      expect(down.status).toBe(503);

      await new Promise((r) => setTimeout(r, stopped + OUTAGE_MS - Date.now()));
      pgCtl('start');
      const deadline = Date.now() + 2_000;

      const callback = signedCallback(sb.signingKey, { ref: intent.merchantReference });
      const s = serve;
      // Each is checked on its own, so a failure names every part that was late.
      const results = await Promise.allSettled([
        by(deadline, 'the desk is online again', () => {
          const st = desk.sync.status();
          return st.online && st.error === null;
        }),
        by(
          deadline,
          "the desk's outbox is in the team record",
          async () =>
            (await owner.query('SELECT 1 FROM team.events WHERE event_key = $1', [answered.dedupeKey!])).rowCount === 1,
        ),
        by(
          deadline,
          "serve's poll made during the outage is in the team record",
          async () => Number((await owner.query('SELECT count(*) AS n FROM team.balance_snapshots')).rows[0].n) > 0,
        ),
        by(
          deadline,
          'serve stores a callback',
          async () => (await fetch(s.url, { method: 'POST', ...callback })).status === 200,
        ),
      ]);
      expect(results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []))).toEqual([]);
    } finally {
      await serve?.close();
      await push.close();
      await desk.close();
    }
  }, 120_000);
});
