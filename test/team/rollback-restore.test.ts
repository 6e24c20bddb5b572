// Issue 29: the team database restored from last night's pg_dump into a new database under the same
// name (the record goes back a day), and, apart from it, a real tampering. Two desks that followed the
// record (and so witnessed it) and serve, on this test file's own database: after the restore every desk
// says the record lost events (not the tamper alarm), the events any desk or serve held are back exactly
// once, every desk's copy equals the restored record row for row and follows it again; a database with
// another id is still refused. A superuser's rewrite under the same head still raises the tamper alarm.
import path from 'node:path';
import pino from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../main/log/logger.js';
import { startServe, type RunningServe } from '../../main/serve/server.js';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';
import { migrate } from '../../main/team/migrate.js';
import { openTeamPool } from '../../main/team/pool.js';
import { dump, restoreAsSameName, superQuery } from '../support/pg-replication.js';
import { fileTempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';
import { recordKeys, witnessDesk, type WitnessDesk } from './witness-desk.js';
import { expectFollowing, expectReplayed, newestSeq, postCallback, restoreTeam, synced } from './rollback-team.js';

let team: Awaited<ReturnType<typeof restoreTeam<'a' | 'b' | 'e' | 'serve'>>>;
let serve: RunningServe;
let dir: string;
const desks: WitnessDesk[] = [];
let reader: pg.Pool;

beforeAll(async () => {
  dir = fileTempDir('md-restore-');
  team = await restoreTeam({ a: 'support', b: 'back_office', e: 'finance', serve: 'receiver' });
  reader = team.pool('e');
  serve = await startServe({
    databaseUrl: team.urlFor('serve'),
    host: '127.0.0.1',
    port: 0,
    verification: team.keys,
    poll: null,
    dataDir: path.join(dir, 'serve'),
    restoreAfterMs: 1_000,
    recordCheckEveryMs: 500,
    logger: createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: true }) }),
  });
}, 60_000);

afterAll(() => team?.close(() => serve?.close().catch(() => undefined)));

const post = async (ref: string, status = 'COMPLETED'): Promise<string> =>
  (await postCallback(serve.url, team.keys.signingKey, reader, ref, status))[0]!;

const lastSeqOf = (d: WitnessDesk) =>
  (d.db.prepare("SELECT last_seq FROM team_sync WHERE stream = 'events'").pluck().get() as number | undefined) ?? 0;

describe('a restore of an older pg_dump into a new database under the same name', () => {
  it('is a rollback, not tampering: what any desk or serve held comes back once, every desk re-bases and follows', async () => {
    const a = team.desk('a');
    const b = team.desk('b');
    desks.push(a, b);
    a.open();
    b.open();
    const night = [];
    for (let i = 0; i < 3; i++) night.push(await a.charge());
    await post(night[0]!.merchantReference);
    await until('desks synced', () => synced(reader, a, b), 15_000);
    const backup = path.join(dir, 'team.dump');
    await dump(team.tdb.server, team.tdb.name, backup);
    const kept = await newestSeq(reader);

    // The day after the backup: all of it is lost by the restore.
    const day = [];
    for (let i = 0; i < 2; i++) day.push(await a.charge());
    a.closeWindow(day[1]!);
    await post(night[1]!.merchantReference, 'FAILED');
    await post(day[0]!.merchantReference);
    await b.note(night[0]!.merchantReference, 'called the customer: all good');
    await until('desks synced', () => synced(reader, a, b), 15_000);
    const head = await newestSeq(reader);
    const lost = (
      await reader.query<{ event_key: string; seq: string }>(
        'SELECT event_key, seq FROM team.events WHERE seq > $1 ORDER BY seq',
        [kept],
      )
    ).rows;
    expect(lost.length).toBeGreaterThanOrEqual(8);

    await restoreAsSameName(team.tdb.server, team.tdb.name, backup);

    for (const d of [a, b]) {
      await until(
        `${d.login} to find that the record changed`,
        () => d.status().rollback != null || d.status().chain.broken !== null,
        20_000,
      );
      expect(chainWords(d.status().chain).alarm).toBe(false);
      expect(d.status().rollback).toMatchObject({ lostFrom: Number(lost[0]!.seq), lostTo: head });
      expect(rollbackWords(d.status().rollback!).text).toMatch(
        new RegExp(`lost events ${lost[0]!.seq}–${head}, probably a failover or a restore from backup`),
      );
    }
    // The restored database is the same team's (its id came back with it): nothing refused.
    expect(a.status().wrongDatabase).toBe(false);

    const restored = team.keep(openTeamPool(team.tdb.adminUrl));
    await until(
      'every lost event back in the record',
      async () => {
        const have = await recordKeys(restored);
        return lost.every((k) => have.has(k.event_key));
      },
      30_000,
    );
    const have = await recordKeys(restored);
    for (const k of lost) expect(have.get(k.event_key), k.event_key).toBe(1);
    for (const d of [a, b]) {
      await until(`${d.login} to re-base`, () => d.status().rollback?.phase === 'rebased', 20_000);
      expect(d.status().rollback!.unrestoredCount).toBe(0);
    }
    const health = (await (await fetch(`${serve.url.replace(/\/callbacks.*$/, '')}/healthz`)).json()) as {
      record: { state: string; message: string };
    };
    expect(health.record.state).toBe('restored');

    const fresh = team.desk('e');
    fresh.open();
    await expectReplayed(restored, fresh, a, b);
    await expectFollowing(reader, post, a, b);

    // Another team's database (another id) is refused as before: nothing applied, nothing written.
    const other = `${team.tdb.name}_other`;
    await superQuery(team.tdb.server, `CREATE DATABASE ${other}`);
    try {
      const otherOwner = openTeamPool(team.tdb.adminUrl.replace(`/${team.tdb.name}`, `/${other}`));
      await migrate(otherOwner);
      await otherOwner.end();
      await superQuery(team.tdb.server, `GRANT CONNECT ON DATABASE ${other} TO support`);
      await a.shut();
      const before = lastSeqOf(a);
      const stray = witnessDesk({
        url: team.urlFor('a').replace(`/${team.tdb.name}`, `/${other}`),
        login: team.logins.a.login,
        role: 'support',
        keys: team.keys,
        db: a.db,
      });
      stray.open();
      await until('the other database refused', () => stray.status().wrongDatabase, 15_000);
      expect(lastSeqOf(a)).toBe(before);
      await stray.close();
    } finally {
      await superQuery(team.tdb.server, `DROP DATABASE IF EXISTS ${other} WITH (FORCE)`);
    }
  }, 180_000);
});

describe('a real tampering of the restored record', () => {
  it('a superuser rewrite under the same head still raises the tamper alarm on a desk that witnessed it, not the rollback message', async () => {
    const b = desks[1]!;
    const was = b.status().rollback;
    const owner = team.keep(openTeamPool(team.tdb.adminUrl));
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
