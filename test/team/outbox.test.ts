// A team desk's durable outbox (issue 20, "one ledger, one durable outbox"): what the service answered a
// desk is stored with an outbox row in the ledger's transaction, and the push sends it until PostgreSQL
// has it, exactly once by event key, across a dropped connection, a kill -9 while PostgreSQL is down, and
// a refusal that never holds back the events behind it. This file runs a PostgreSQL server of its own,
// so stopping it disturbs no other test file.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { outboxCounts } from '../../main/collections/outbox.js';
import { getCollection, listCollections } from '../../main/collections/query.js';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordIntent } from '../../main/team/record.js';
import { startOutboxPush, type OutboxPush } from '../../main/team/sync/push.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { newIntent, quietLogger } from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { until } from '../support/wait.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

let server: PgServerInfo;
let owner: pg.Pool;
let support: string;
const SUPPORT_PASSWORD = 'pw-outbox-support-1';
const pools: pg.Pool[] = [];
const pushes: OutboxPush[] = [];
const DB = 'team_outbox';

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

const supportUrl = () => serverUrl(server, DB, support, SUPPORT_PASSWORD);
function supportPool(): pg.Pool {
  const p = openTeamPool(supportUrl(), { onIdleError: () => undefined });
  pools.push(p);
  return p;
}

function deskDb(): { db: Db; file: string } {
  const dir = fileTempDir('md-outbox-');
  const file = path.join(dir, 'merchant-desk.sqlite');
  return { db: openDatabase(file), file };
}

function push(db: Db, pool: pg.Pool, over: Partial<Parameters<typeof startOutboxPush>[0]> = {}): OutboxPush {
  const p = startOutboxPush({
    pool,
    db,
    clock: systemClock,
    logger: quietLogger,
    retryFirstMs: 50,
    retryMaxMs: 300,
    ...over,
  });
  pushes.push(p);
  return p;
}

/** A charge's intent, team-wide and on the desk: the collection the charge events belong to. */
async function intentOn(db: Db, pool: pg.Pool): Promise<{ id: number; reference: string }> {
  const intent = newIntent();
  await recordIntent(pool, intent);
  return { id: saveIntentCollection(ledger, db, intent), reference: intent.merchantReference };
}

function answer(c: { id: number; reference: string }, over: Partial<NewEvent> = {}): NewEvent {
  return {
    collectionId: c.id,
    merchantReference: c.reference,
    source: 'initiate',
    kind: 'initialize_accepted',
    status: 'PENDING',
    receivedAt: Date.now(),
    signature: 'not_applicable',
    internalReference: `INT-${c.reference}`,
    paymentUrl: `https://pay.example.invalid/${c.reference}`,
    ...over,
  };
}

const outboxKeys = (db: Db, state = 'sent') =>
  db.prepare('SELECT event_key FROM team_outbox WHERE state = ? ORDER BY event_key').pluck().all(state) as string[];

async function teamKeys(refs: readonly string[]): Promise<string[]> {
  const r = await owner.query<{ event_key: string }>(
    `SELECT event_key FROM team.events WHERE merchant_reference = ANY($1) AND source <> 'intent' ORDER BY event_key`,
    [refs],
  );
  return r.rows.map((x) => x.event_key);
}

beforeAll(async () => {
  server = await startServer();
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  owner = openTeamPool(serverUrl(server, DB), { onIdleError: () => undefined });
  pools.push(owner);
  await migrate(owner);
  support = 'support_outbox';
  await addOperator(
    { pool: owner },
    { login: support, role: 'support', password: SUPPORT_PASSWORD, displayName: 'Support' },
  );
}, 120_000);

afterEach(async () => {
  while (pushes.length) await pushes.pop()!.close();
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  if (server) stopServerSync(server.dir, server.binDir);
});

describe('the outbox push', () => {
  it('the desk backend terminated mid-batch (pg_terminate_backend): nothing lost, every event in team.events once', async () => {
    const { db } = deskDb();
    const pool = supportPool();
    const collections = [];
    for (let i = 0; i < 30; i++) collections.push(await intentOn(db, pool));
    // Each row of this desk's batch sleeps a little while the flag is up, so the batch is in flight long
    // enough to terminate its backend in the middle of it.
    await owner.query(`
      CREATE TABLE public.slow_outbox (on_ boolean);
      INSERT INTO public.slow_outbox VALUES (true);
      CREATE FUNCTION public.slow_outbox() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM public.slow_outbox WHERE on_) THEN PERFORM pg_sleep(0.02); END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER slow_outbox BEFORE INSERT ON team.events FOR EACH ROW EXECUTE FUNCTION public.slow_outbox();`);
    try {
      for (const c of collections) {
        ledger.append(db, answer(c), { outbox: true });
        ledger.append(
          db,
          answer(c, {
            source: 'redirect',
            kind: 'window_closed',
            status: null,
            internalReference: null,
            paymentUrl: null,
            note: 'closed',
          }),
          { outbox: true },
        );
      }
      expect(outboxCounts(db)).toEqual({ pending: 60, refused: 0 });
      push(db, pool, { batchSize: 25 });
      let killed = 0;
      await until(
        'the desk backend is terminated in the middle of a batch',
        async () => {
          const r = await owner.query<{ ok: boolean }>(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
           WHERE usename = $1 AND state = 'active' AND query LIKE '%INSERT INTO team.events%'`,
            [support],
          );
          killed += r.rows.filter((x) => x.ok).length;
          return killed > 0;
        },
        20_000,
      );
    } finally {
      await owner.query('UPDATE public.slow_outbox SET on_ = false');
    }
    await until('the outbox is empty', () => outboxCounts(db).pending === 0, 20_000);
    const refs = collections.map((c) => c.reference);
    const sent = outboxKeys(db);
    expect(sent).toHaveLength(60);
    expect(outboxCounts(db).refused).toBe(0);
    expect(await teamKeys(refs)).toEqual(sent);
    await owner.query('DROP TRIGGER slow_outbox ON team.events');
  });

  it('refused by the database (a source the login may not write): kept on the desk with why, shown on its collection, and the events behind it still go', async () => {
    const { db } = deskDb();
    const pool = supportPool();
    const [a, b, c] = [await intentOn(db, pool), await intentOn(db, pool), await intentOn(db, pool)];
    ledger.append(db, answer(a), { outbox: true });
    // A support login may write charge events (intent, initiate, redirect, security), not callbacks.
    ledger.append(
      db,
      answer(b, {
        source: 'callback',
        kind: 'outcome',
        status: 'COMPLETED',
        signature: 'verified',
        amountMinor: 150_000,
        currency: 'UGX',
        paymentUrl: null,
      }),
      { outbox: true },
    );
    ledger.append(db, answer(c), { outbox: true });
    push(db, pool);
    await until('nothing is pending', () => outboxCounts(db).pending === 0, 20_000);
    expect(outboxCounts(db)).toEqual({ pending: 0, refused: 1 });
    expect(await teamKeys([a.reference, b.reference, c.reference])).toEqual(outboxKeys(db));
    expect(outboxKeys(db)).toHaveLength(2);

    const refused = getCollection(db, b.id)!;
    const callback = refused.events.find((e) => e.source === 'callback')!;
    expect(callback.teamRefused).toMatch(
      new RegExp(
        `^not accepted by the team database: ${support} may not append events: new row violates row-level security`,
      ),
    );
    expect(refused.collection.teamRefused).toBe(1);
    // The list shows it too (the detail says why).
    const listed = listCollections(db, {}).rows.find((r) => r.id === b.id);
    expect(listed?.teamRefused).toBe(1);
    // The other collections' events went: nothing is shown as refused there.
    expect(getCollection(db, a.id)!.events.every((e) => e.teamRefused === null)).toBe(true);
    expect(getCollection(db, c.id)!.events.every((e) => e.teamRefused === null)).toBe(true);
    // A refusal is final: a new start does not send it again, and it stays.
    const again = push(db, pool);
    await again.drain();
    expect(outboxCounts(db)).toEqual({ pending: 0, refused: 1 });
  });

  it('kill -9 of a desk with events in its outbox while PostgreSQL is stopped: after restart and PostgreSQL back, every event reaches team.events exactly once', async () => {
    const { db, file } = deskDb();
    const pool = supportPool();
    const collections = [];
    for (let i = 0; i < 40; i++) collections.push(await intentOn(db, pool));
    const refs = collections.map((c) => c.reference);
    db.close();
    pgCtl('stop', '-m', 'fast');
    let killedAt = 0;
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(path.dirname(fileURLToPath(import.meta.url)), 'outbox-child.ts'),
          file,
          supportUrl(),
          refs.join(','),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /stored (\d+)\n(?![\s\S]*stored)/.exec(out);
          if (m && Number(m[1]) >= 30 && !killedAt) {
            killedAt = Number(m[1]);
            child.kill('SIGKILL'); // mid-run: the push retrying, events still being written
            resolve();
          }
        });
        child.on('exit', () => reject(new Error(`the desk process ended before it was killed: ${out}`)));
      });
      expect(await exited).toBe('SIGKILL');
    } finally {
      pgCtl('start');
    }
    const again = openDatabase(file);
    try {
      const stored = outboxCounts(again);
      // Every event the desk stored before it died is in the outbox (the ledger's transaction), none sent.
      expect(stored.pending).toBeGreaterThanOrEqual(killedAt);
      expect(stored.pending).toBe(
        again.prepare("SELECT COUNT(*) FROM collection_events WHERE source IN ('initiate', 'redirect')").pluck().get(),
      );
      const p = push(again, supportPool());
      await until('the outbox is empty', () => outboxCounts(again).pending === 0, 60_000);
      const sent = outboxKeys(again);
      expect(sent).toHaveLength(stored.pending);
      expect(await teamKeys(refs)).toEqual(sent);
      // A second start sends nothing twice.
      await p.close();
      await push(again, supportPool()).drain();
      expect(await teamKeys(refs)).toEqual(sent);
    } finally {
      while (pushes.length) await pushes.pop()!.close();
      again.close();
    }
  }, 120_000);
});
