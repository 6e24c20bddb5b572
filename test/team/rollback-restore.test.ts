// Issue 29: the team database restored from last night's pg_dump into a new database under the same
// name (the record goes back a day), and, apart from it, a real tampering. Two desks that followed the
// record (and so witnessed it) and serve, on this test file's own database: after the restore every desk
// says the record lost events (not the tamper alarm), the events any desk or serve held are back exactly
// once, every desk's copy equals the restored record row for row and follows it again; a database with
// another id is still refused. A superuser's rewrite under the same head still raises the tamper alarm.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../main/log/logger.js';
import { startServe, type RunningServe } from '../../main/serve/server.js';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { dump, restoreAsSameName, suffix, superQuery } from '../support/pg-replication.js';
import { signedCallback } from '../serve/harness.js';
import { copyOf, pendingOf, recordKeys, waitUntil, witnessDesk, type WitnessDesk } from './witness-desk.js';

let tdb: TestDatabase;
let serve: RunningServe;
let dir: string;
const signingKey = crypto.randomBytes(24).toString('hex');
const keys = { signingKey, servicePublicKey: null };
const logins = {} as Record<'a' | 'b' | 'e' | 'serve', { login: string; password: string }>;
const desks: WitnessDesk[] = [];
const pools: pg.Pool[] = [];
let reader: pg.Pool;

const urlFor = (who: keyof typeof logins) => tdb.urlFor(logins[who].login, logins[who].password);
function pool(who: keyof typeof logins): pg.Pool {
  const p = openTeamPool(urlFor(who), { onIdleError: () => undefined });
  pools.push(p);
  return p;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-restore-'));
  tdb = await createTestDatabase();
  const owner = openTeamPool(tdb.adminUrl);
  await migrate(owner);
  const s = suffix();
  for (const [who, role] of [
    ['a', 'support'],
    ['b', 'back_office'],
    ['e', 'finance'],
    ['serve', 'receiver'],
  ] as const) {
    const login = `${who}_${s}`;
    const password = `pw-${crypto.randomBytes(9).toString('hex')}`;
    await addOperator({ pool: owner }, { login, role, password, displayName: `desk ${who}` });
    logins[who] = { login, password };
  }
  await owner.end();
  reader = pool('e');
  serve = await startServe({
    databaseUrl: urlFor('serve'),
    host: '127.0.0.1',
    port: 0,
    verification: keys,
    poll: null,
    dataDir: path.join(dir, 'serve'),
    restoreAfterMs: 1_000,
    recordCheckEveryMs: 500,
    logger: createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: true }) }),
  });
}, 60_000);

afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  await serve?.close().catch(() => undefined);
  await tdb?.drop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function post(ref: string, status = 'COMPLETED'): Promise<string> {
  const cb = signedCallback(signingKey, { ref, status, amount: 1500.5 });
  const r = await fetch(serve.url, { method: 'POST', body: cb.body, headers: cb.headers });
  expect(r.status).toBe(200);
  const key = await reader.query<{ event_key: string }>(
    "SELECT event_key FROM team.events WHERE merchant_reference = $1 AND source = 'callback' AND status = $2",
    [ref, status],
  );
  return key.rows[0]!.event_key;
}

const lastSeqOf = (d: WitnessDesk) =>
  (d.db.prepare("SELECT last_seq FROM team_sync WHERE stream = 'events'").pluck().get() as number | undefined) ?? 0;
const newestSeq = async (p: pg.Pool) =>
  Number((await p.query<{ m: string | null }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m ?? 0);
const synced = async (d: WitnessDesk) => d.status().lastSeq >= (await newestSeq(reader)) && pendingOf(d) === 0;

describe('a restore of an older pg_dump into a new database under the same name', () => {
  it('is a rollback, not tampering: what any desk or serve held comes back once, every desk re-bases and follows', async () => {
    const a = witnessDesk({ url: urlFor('a'), login: logins.a.login, role: 'support', keys });
    const b = witnessDesk({ url: urlFor('b'), login: logins.b.login, role: 'back_office', keys });
    desks.push(a, b);
    a.open();
    b.open();
    const night = [];
    for (let i = 0; i < 3; i++) night.push(await a.charge());
    await post(night[0]!.merchantReference);
    await waitUntil(async () => (await synced(a)) && (await synced(b)), 15_000, 'desks synced');
    const backup = path.join(dir, 'team.dump');
    await dump(tdb.server, tdb.name, backup);
    const kept = await newestSeq(reader);

    // The day after the backup: all of it is lost by the restore.
    const day = [];
    for (let i = 0; i < 2; i++) day.push(await a.charge());
    a.closeWindow(day[1]!);
    await post(night[1]!.merchantReference, 'FAILED');
    await post(day[0]!.merchantReference);
    await b.note(night[0]!.merchantReference, 'called the customer: all good');
    await waitUntil(async () => (await synced(a)) && (await synced(b)), 15_000, 'desks synced');
    const head = await newestSeq(reader);
    const lost = (
      await reader.query<{ event_key: string; seq: string }>(
        'SELECT event_key, seq FROM team.events WHERE seq > $1 ORDER BY seq',
        [kept],
      )
    ).rows;
    expect(lost.length).toBeGreaterThanOrEqual(8);

    await restoreAsSameName(tdb.server, tdb.name, backup);

    for (const d of [a, b]) {
      await waitUntil(
        () => d.status().rollback != null || d.status().chain.broken !== null,
        20_000,
        `${d.login} to find that the record changed`,
      );
      expect(chainWords(d.status().chain).alarm).toBe(false);
      expect(d.status().rollback).toMatchObject({ lostFrom: Number(lost[0]!.seq), lostTo: head });
      expect(rollbackWords(d.status().rollback!).text).toMatch(
        new RegExp(`lost events ${lost[0]!.seq}–${head}, probably a failover or a restore from backup`),
      );
    }
    // The restored database is the same team's (its id came back with it): nothing refused.
    expect(a.status().wrongDatabase).toBe(false);

    const restored = openTeamPool(tdb.adminUrl);
    pools.push(restored);
    await waitUntil(
      async () => {
        const have = await recordKeys(restored);
        return lost.every((k) => have.has(k.event_key));
      },
      30_000,
      'every lost event back in the record',
    );
    const have = await recordKeys(restored);
    for (const k of lost) expect(have.get(k.event_key), k.event_key).toBe(1);
    for (const d of [a, b]) {
      await waitUntil(() => d.status().rollback?.phase === 'rebased', 20_000, `${d.login} to re-base`);
      expect(d.status().rollback!.unrestoredCount).toBe(0);
    }
    const health = (await (await fetch(`${serve.url.replace(/\/callbacks.*$/, '')}/healthz`)).json()) as {
      record: { state: string; message: string };
    };
    expect(health.record.state).toBe('restored');

    const fresh = witnessDesk({ url: urlFor('e'), login: logins.e.login, role: 'finance', keys });
    desks.push(fresh);
    fresh.open();
    await waitUntil(
      async () => {
        const n = await newestSeq(restored);
        return [a, b, fresh].every((d) => d.status().lastSeq >= n && pendingOf(d) === 0);
      },
      20_000,
      'every desk on the restored record',
    );
    const replay = copyOf(fresh.db);
    expect(copyOf(a.db)).toEqual(replay);
    expect(copyOf(b.db)).toEqual(replay);

    const next = await a.charge();
    await waitUntil(async () => (await synced(a)) && (await synced(b)), 10_000, 'the charge');
    const key = await post(next.merchantReference);
    for (const d of [a, b])
      await waitUntil(
        () => d.db.prepare('SELECT 1 FROM collection_events WHERE dedupe_key = ?').get(key) !== undefined,
        1_000,
        `${d.login} to apply the new callback`,
      );

    // Another team's database (another id) is refused as before: nothing applied, nothing written.
    const other = `${tdb.name}_other`;
    await superQuery(tdb.server, `CREATE DATABASE ${other}`);
    try {
      const otherOwner = openTeamPool(tdb.adminUrl.replace(`/${tdb.name}`, `/${other}`));
      await migrate(otherOwner);
      await otherOwner.end();
      await superQuery(tdb.server, `GRANT CONNECT ON DATABASE ${other} TO support`);
      await a.shut();
      const before = lastSeqOf(a);
      const stray = witnessDesk({
        url: urlFor('a').replace(`/${tdb.name}`, `/${other}`),
        login: logins.a.login,
        role: 'support',
        keys,
        db: a.db,
      });
      stray.open();
      await waitUntil(() => stray.status().wrongDatabase, 15_000, 'the other database refused');
      expect(lastSeqOf(a)).toBe(before);
      await stray.close();
    } finally {
      await superQuery(tdb.server, `DROP DATABASE IF EXISTS ${other} WITH (FORCE)`);
    }
  }, 180_000);
});

describe('a real tampering of the restored record', () => {
  it('a superuser rewrite under the same head still raises the tamper alarm on a desk that witnessed it, not the rollback message', async () => {
    const b = desks[1]!;
    const was = b.status().rollback;
    const owner = openTeamPool(tdb.adminUrl);
    pools.push(owner);
    const victim = Number(
      (await owner.query<{ seq: string }>("SELECT max(seq) AS seq FROM team.events WHERE source = 'callback'")).rows[0]!
        .seq,
    );
    const c = await owner.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
      await c.query("UPDATE team.events SET status = 'CANCELLED' WHERE seq = $1", [victim]);
      // The cover-up: every hash recomputed, as the database itself would.
      await c.query(`
        WITH running AS (
          SELECT seq, team.chain_hash(team.event_canonical(e)) OVER (ORDER BY seq) AS hash FROM team.events e
        ), linked AS (
          SELECT seq, hash, lag(hash, 1, team.chain_genesis()) OVER (ORDER BY seq) AS prev_hash FROM running
        )
        UPDATE team.events e SET hash = l.hash, prev_hash = l.prev_hash FROM linked l WHERE e.seq = l.seq`);
      await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    const st = await b.session!.sync.recheckChain();
    expect(st.broken).toMatchObject({ reason: expect.stringMatching(/not the one this desk verified/) });
    expect(chainWords(b.status().chain).alarm).toBe(true);
    // The rollback it told of before is the one it keeps: this is not another.
    expect(b.status().rollback).toEqual(was);
    // And its pulls stop there: nothing of the rewritten record is applied.
    const seq = lastSeqOf(b);
    await post(
      desks[0]!.db.prepare('SELECT merchant_reference FROM collections LIMIT 1').pluck().get() as string,
      'FAILED',
    );
    await expect(b.session!.sync.pullNow()).rejects.toMatchObject({ name: 'ChainBrokenError' });
    expect(lastSeqOf(b)).toBe(seq);
    expect(b.status().rollback).toEqual(was);
  }, 60_000);
});
