// Tamper evidence beyond the roles (issue 20): team.events is hash-chained by the database (team
// migration 10), and every desk checks the chain as it pulls, keeps the head it verified, and re-checks
// what it holds. Against a real PostgreSQL, as its superuser: a rewritten, deleted or reordered event,
// even with every later hash recomputed, is reported within one check; a pulled batch that does not
// continue the chain is not applied; a snapshot over a record whose chain does not match is refused.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { statusFrom } from '../../main/app/status.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { canonicalEvent, ChainBrokenError, checkChain, eventHash, GENESIS, START } from '../../main/team/chain.js';
import { appendEvents, pullPageRaw, pullSince, type NewTeamEvent } from '../../main/team/events.js';
import { migrate } from '../../main/team/migrate.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { openTeamPool } from '../../main/team/pool.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { downloadSnapshot, storeSnapshot } from '../../main/team/snapshot/store.js';
import { startTeamSync } from '../../main/team/sync/pull.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { createTestDatabase } from '../support/postgres.js';
import { appendEventsBeforeEvidence, event, teamFixture, type TeamFixture } from './fixture.js';
import { history } from './new-desk.js';
import { openDesk, quietLogger, type Desk } from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { tempDir } from '../support/tmp.js';

const { ledger } = testLedger();

let team: TeamFixture;
const desks: Desk[] = [];

beforeEach(async () => {
  team = await teamFixture();
});
afterEach(async () => {
  while (desks.length) await desks.pop()!.close();
  await team?.close();
});

async function write(events: readonly NewTeamEvent[], pool: pg.Pool = team.owner): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < events.length; i += 1000)
    seqs.push(...(await appendEvents(pool, events.slice(i, i + 1000))).stored.map((s) => s.seq));
  return seqs;
}

/** As the server's superuser, with every user trigger of team.events off (the append-only one too). */
async function asSuperuser(sql: string | ((c: pg.PoolClient) => Promise<void>), params: unknown[] = []): Promise<void> {
  const c = await team.owner.connect();
  try {
    await c.query('BEGIN');
    await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
    if (typeof sql === 'string') await c.query(sql, params);
    else await sql(c);
    await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  } finally {
    c.release();
  }
}

/** The superuser's cover-up: every hash from `fromSeq` on recomputed, as the database itself would. */
const RECOMPUTE = `
  WITH running AS (
    SELECT seq, team.chain_hash(team.event_canonical(e)) OVER (ORDER BY seq) AS hash FROM team.events e
  ), linked AS (
    SELECT seq, hash, lag(hash, 1, team.chain_genesis()) OVER (ORDER BY seq) AS prev_hash FROM running
  )
  UPDATE team.events e SET hash = l.hash, prev_hash = l.prev_hash FROM linked l WHERE e.seq = l.seq`;

/** A support desk that pulled `n` events; resolves with it and their seqs. */
async function syncedDesk(n = 40): Promise<{ desk: Desk; seqs: number[] }> {
  const seqs = await write(Array.from({ length: n }, () => event()));
  const desk = openDesk(team.signIn(await team.addOperator('support')), { batchSize: 7 });
  desks.push(desk);
  await desk.sync.pullNow();
  expect(lastSeq(desk.db, 'events')).toBe(seqs[seqs.length - 1]);
  expect(desk.sync.status().chain).toMatchObject({ verifiedSeq: seqs[seqs.length - 1], broken: null });
  // The re-check a sign-in starts has finished (a later call would otherwise share it).
  expect((await desk.sync.recheckChain()).broken).toBeNull();
  return { desk, seqs };
}

/** The desk's sync stopped and started again on the same SQLite file (an app restart). */
async function restart(desk: Desk): Promise<void> {
  await desk.sync.close();
  desk.sync = startTeamSync({
    pool: desk.pool,
    db: desk.db,
    ledger,
    clock: systemClock,
    logger: quietLogger,
    pollEveryMs: 60_000,
  });
}

describe('the canonical content', () => {
  it('is byte for byte the same in SQL and TypeScript for awkward values; each hash follows from it', async () => {
    const awkward = [
      'plain',
      '',
      'a "quote" and an \'apostrophe\'',
      'back\\slash, \\u0041 and \\n as text',
      'new\nline, \r return, \t tab',
      'controls \u0001\u0008\u000b\u000c\u001f and \u007f',
      'unicode é ñ 中文 😀 e\u0301 \u2028\u2029 \ufeff',
      '</script><b>',
      'null',
      '[1,"2"]',
    ];
    const amounts = [0, -5, 1, 9_007_199_254_740_991, null];
    const events: NewTeamEvent[] = awkward.map((text, i) => ({
      eventKey: `awkward:${i}:${text}`,
      merchantReference: `R-${text}`,
      internalReference: i % 2 ? null : text,
      source: 'callback',
      kind: `k${text}`.slice(0, 64),
      status: i % 3 ? text : null,
      amountMinor: amounts[i % amounts.length]!,
      currency: i % 2 ? 'UGX' : null,
      signature: 'verified',
      payload: i % 4 === 3 ? null : `{"text":${JSON.stringify(text)}} ${text}`,
      note: text,
      paymentUrl: i % 2 ? null : `https://pay.example.invalid/${text}`,
      statusMessage: text,
      occurredAt: Date.UTC(2026, 0, 1) + i * 1234 + 7,
      // The evidence (team migration 11) is the last column: present, absent, awkward.
      evidence: i % 3 === 2 ? null : JSON.stringify({ query: `?text=${text}` }),
    }));
    // Long payloads: the hash's scratch buffer (chain.ts) nearly full, and one beyond it (the streaming hash).
    for (const [i, payload] of [`long ${'x'.repeat(80_000)} 😀`, `longer ${'é中'.repeat(150_000)}`].entries())
      events.push({ ...events[0]!, eventKey: `awkward:long:${i}`, payload });
    const seqs = await write(events);
    const sql = await team.owner.query<{ seq: string; canonical: string; hash: Buffer; prev_hash: Buffer }>(
      'SELECT seq, team.event_canonical(e) AS canonical, hash, prev_hash FROM team.events e ORDER BY seq',
    );
    const pulled = await pullSince(team.owner, 0, 1000);
    expect(pulled.events.map((e) => e.seq)).toEqual(seqs);
    for (const [i, e] of pulled.events.entries()) {
      const row = sql.rows[i]!;
      expect(canonicalEvent(e)).toBe(row.canonical);
      expect(Buffer.from(canonicalEvent(e), 'utf8')).toEqual(Buffer.from(row.canonical, 'utf8'));
      expect(e.prevHash).toEqual(i === 0 ? GENESIS : sql.rows[i - 1]!.hash);
      expect(eventHash(e.prevHash, e)).toEqual(row.hash);
    }
    // The bulk copy's raw page reads the same values (text, no Date parsing) and so the same chain.
    const raw = await pullPageRaw(team.owner, 0, 1000);
    expect(raw.events.map(canonicalEvent)).toEqual(sql.rows.map((r) => r.canonical));
    expect(checkChain(START, raw.events)).toEqual({ seq: seqs[seqs.length - 1], hash: sql.rows.at(-1)!.hash });
    // A sample, spelled out: a JSON array of texts and nulls in the documented column order.
    expect(JSON.parse(sql.rows[0]!.canonical)).toEqual([
      String(seqs[0]),
      'awkward:0:plain',
      'R-plain',
      'plain',
      'callback',
      'kplain',
      null,
      '0',
      null,
      'verified',
      '{"text":"plain"} plain',
      'plain',
      'https://pay.example.invalid/plain',
      'plain',
      String(Date.UTC(2026, 0, 1) + 7),
      expect.stringMatching(/^\d{13}$/),
      expect.any(String),
      '{"query":"?text=plain"}',
    ]);
  });

  it('drops trailing nulls on both sides, so a column appended later leaves older rows as they were', async () => {
    const sql = await team.owner.query<{ c: string }>(
      `SELECT team.event_canonical(jsonb_populate_record(NULL::team.events, $1::jsonb)) AS c`,
      [JSON.stringify({ seq: 7, event_key: 'k', merchant_reference: 'R', kind: 'outcome', amount_minor: 5 })],
    );
    const ts = canonicalEvent({
      seq: 7,
      eventKey: 'k',
      merchantReference: 'R',
      internalReference: null,
      source: null as never,
      kind: 'outcome',
      status: null,
      amountMinor: 5,
      currency: null,
      signature: null as never,
      payload: null,
      note: null,
      paymentUrl: null,
      statusMessage: null,
      occurredAt: null as never,
      recordedAt: null as never,
      actor: null as never,
      evidence: null,
    });
    expect(sql.rows[0]!.c).toBe('["7","k","R",null,null,"outcome",null,"5"]');
    expect(ts).toBe(sql.rows[0]!.c);
  });

  it('a client can neither name its hashes nor change them', async () => {
    const support = team.signIn(await team.addOperator('support'));
    await expect(
      support.query(
        `INSERT INTO team.events (event_key, merchant_reference, source, kind, signature, occurred_at, hash)
         VALUES ('x', 'y', 'initiate', 'k', 'not_applicable', now(), sha256(''))`,
      ),
    ).rejects.toMatchObject({ code: '42501' });
    const [seq] = await write([event()], support);
    await expect(
      team.owner.query('UPDATE team.events SET hash = sha256($1) WHERE seq = $2', ['x', seq]),
    ).rejects.toThrow(/append-only/);
  });

  it('links each event to the one before it across a gap in seq (an insert rolled back, a seq drawn and not used)', async () => {
    const before = await write([event(), event()]);
    const c = await team.owner.connect();
    try {
      await c.query('BEGIN');
      await appendEvents(c, [event()]);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    await team.owner.query(`SELECT nextval('team.events_seq')`);
    const after = await write([event(), event()]);
    expect(after[0]).toBe(before[1]! + 3);
    const rows = (
      await team.owner.query<{ hash: Buffer; prev_hash: Buffer }>(
        'SELECT hash, prev_hash FROM team.events ORDER BY seq',
      )
    ).rows;
    expect(rows).toHaveLength(4);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toEqual(rows[i - 1]!.hash);
    // A desk pulling them finds the chain whole, to the newest event.
    const pulled = await pullSince(team.owner, 0, 100);
    expect(checkChain(START, pulled.events)).toEqual({ seq: after[1], hash: rows[3]!.hash });
  });

  it('a database migrating from version 7 gets its existing events chained in seq order', async () => {
    const db = await createTestDatabase();
    const pool = openTeamPool(db.adminUrl);
    try {
      await migrate(
        pool,
        teamMigrations.filter((m) => m.version <= 7),
      );
      await appendEventsBeforeEvidence(pool, history(60, 'MD-OLD', 3));
      await migrate(pool);
      const more = await appendEvents(pool, history(5, 'MD-NEW', 4));
      const all = await pullSince(pool, 0, 10_000);
      const head = checkChain(START, all.events);
      expect(head.seq).toBe(more.stored.at(-1)!.seq);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});

describe('a desk watching the chain', () => {
  it('reports a superuser UPDATE of an old event (append-only trigger disabled) within one check, in its status', async () => {
    const { desk, seqs } = await syncedDesk();
    expect((await desk.sync.recheckChain()).broken).toBeNull();
    expect(desk.sync.status().chain.recheckedAt).not.toBeNull();

    const victim = seqs[5]!;
    await asSuperuser("UPDATE team.events SET status = 'COMPLETED', note = 'paid' WHERE seq = $1", [victim]);
    const st = await desk.sync.recheckChain();
    expect(st.broken).toEqual({ seq: victim, reason: expect.stringMatching(/content is not what was recorded/) });
    expect(desk.sync.status().chain.broken?.seq).toBe(victim);
    // What the status bar says with it.
    const bar = statusFrom({
      profile: 'team',
      keychain: 'available',
      started: true,
      sandboxRunning: false,
      startError: null,
      connection: { ok: true },
      poller: null,
      lastSuccessFromLog: null,
      team: {
        login: 'x',
        role: 'support',
        signedIn: true,
        online: true,
        lastSyncAt: 1,
        reached: true,
        error: null,
        chain: desk.sync.status().chain,
      },
    });
    expect(bar).toMatchObject({
      connection: 'error',
      message: expect.stringMatching(new RegExp(`^Team record altered: seq ${victim} does not match its hash chain`)),
    });
  });

  it('reports it even when the superuser recomputed every later hash: the head this desk kept no longer matches', async () => {
    const { desk, seqs } = await syncedDesk();
    await asSuperuser("UPDATE team.events SET status = 'COMPLETED' WHERE seq = $1", [seqs[3]]);
    await asSuperuser(RECOMPUTE);
    // A desk that never saw the record before cannot tell: the rewritten chain is consistent in itself.
    expect(checkChain(START, (await pullSince(team.owner, 0, 1000)).events).seq).toBe(seqs.at(-1));
    const st = await desk.sync.recheckChain();
    expect(st.broken).toEqual({
      seq: seqs.at(-1),
      reason: expect.stringMatching(/hash is not the one this desk verified/),
    });
    // And its pulls stop there: a new event chains onto the rewritten record, not onto what was verified.
    await write([event()]);
    await expect(desk.sync.pullNow()).rejects.toBeInstanceOf(ChainBrokenError);
    expect(lastSeq(desk.db, 'events')).toBe(seqs.at(-1));
  });

  it('names the block of seqs where the record was rewritten under recomputed hashes, by the marks it kept', async () => {
    const { desk, seqs } = await syncedDesk(2_600);
    const marks = desk.db.prepare('SELECT seq FROM team_chain_marks ORDER BY seq').pluck().all() as number[];
    expect(marks).toEqual(seqs.filter((q, i) => i > 0 && Math.floor(q / 1000) !== Math.floor(seqs[i - 1]! / 1000)));
    expect(marks.length).toBeGreaterThanOrEqual(2);
    const [first, second] = [marks[0]!, marks[1]!];
    await asSuperuser("UPDATE team.events SET status = 'COMPLETED' WHERE seq = $1", [first + 10]);
    await asSuperuser(RECOMPUTE);
    expect((await desk.sync.recheckChain()).broken).toEqual({
      seq: second,
      reason: `its hash is not the one this desk verified: the record was rewritten after seq ${first} and at or before seq ${second}, and its later hashes recomputed`,
    });
  });

  it('reports a deleted event, and a deleted newest event', async () => {
    const { desk, seqs } = await syncedDesk();
    await asSuperuser('DELETE FROM team.events WHERE seq = $1', [seqs[10]]);
    expect((await desk.sync.recheckChain()).broken).toEqual({
      seq: seqs[11],
      reason: expect.stringMatching(/does not follow seq/),
    });
    await asSuperuser('DELETE FROM team.events WHERE seq >= $1', [seqs[38]]);
    const st = await desk.sync.recheckChain();
    expect(st.broken?.seq).toBe(seqs[11]); // the first that does not match is still named
  });

  it('takes the newest event removed on its own for what it looks like, a record that went back: said so, listed, no alarm', async () => {
    // A record that ends before the head this desk verified is what an asynchronous failover or a restore
    // from backup leaves (issue 29): the desk says the record lost it, not that someone altered it, lists
    // what it cannot put back (the owner's unsigned event) and follows the record again.
    const { desk, seqs } = await syncedDesk();
    await asSuperuser('DELETE FROM team.events WHERE seq = $1', [seqs.at(-1)]);
    expect((await desk.sync.recheckChain()).broken).toBeNull();
    await desk.sync.pullNow();
    expect(desk.sync.status().chain.broken).toBeNull();
    expect(desk.sync.status().rollback).toMatchObject({
      lostFrom: seqs.at(-1),
      lostTo: seqs.at(-1),
      phase: 'rebased',
      unrestoredCount: 1,
      unrestored: [{ seq: null, reason: expect.stringMatching(/not signed by the service/) }],
    });
    expect(lastSeq(desk.db, 'events')).toBe(seqs.at(-2));
  });

  it('reports two events swapped', async () => {
    const { desk, seqs } = await syncedDesk();
    const [a, b] = [seqs[20]!, seqs[21]!];
    await asSuperuser('UPDATE team.events SET seq = -seq WHERE seq IN ($1, $2)', [a, b]);
    await asSuperuser(
      'UPDATE team.events SET seq = CASE seq WHEN $1::bigint THEN $3::bigint ELSE $4::bigint END WHERE seq IN ($1, $2)',
      [-a, -b, b, a],
    );
    expect((await desk.sync.recheckChain()).broken?.seq).toBe(a);
  });

  it('does not apply a pulled batch that does not continue the chain; applies it once the record is put back', async () => {
    const { desk, seqs } = await syncedDesk(20);
    // New events, one of them rewritten by the superuser in the same transaction: no desk saw it honest.
    const fresh: number[] = [];
    const original = 'PENDING';
    await asSuperuser(async (c) => {
      await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
      fresh.push(
        ...(
          await appendEvents(
            c,
            Array.from({ length: 5 }, () => event()),
          )
        ).stored.map((x) => x.seq),
      );
      await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
      await c.query("UPDATE team.events SET status = 'COMPLETED' WHERE seq = $1", [fresh[2]]);
    });
    await expect(desk.sync.pullNow()).rejects.toMatchObject({ name: 'ChainBrokenError', seq: fresh[2] });
    // Nothing of the batch is in the desk's copy; the alarm says where it stopped.
    expect(lastSeq(desk.db, 'events')).toBe(seqs.at(-1));
    const stored = desk.db.prepare('SELECT count(*) FROM collection_events').pluck().get();
    expect(stored).toBe(20);
    expect(desk.sync.status().chain).toMatchObject({ verifiedSeq: seqs.at(-1), broken: { seq: fresh[2] } });
    expect(desk.sync.status().error).toMatch(/does not match its hash chain at seq/);

    await asSuperuser('UPDATE team.events SET status = $1 WHERE seq = $2', [original, fresh[2]]);
    await desk.sync.pullNow();
    expect(lastSeq(desk.db, 'events')).toBe(fresh.at(-1));
    expect(desk.sync.status().chain).toMatchObject({ verifiedSeq: fresh.at(-1), broken: null });
  });

  it('a desk from before the chain (or one that crashed before keeping its head) checks what it applied first', async () => {
    const { desk, seqs } = await syncedDesk(15);
    await desk.sync.close();
    desk.db.exec('DELETE FROM team_chain');
    await asSuperuser("UPDATE team.events SET note = 'forged' WHERE seq = $1", [seqs[4]]);
    await write([event()]);
    await restart(desk);
    await expect(desk.sync.pullNow()).rejects.toMatchObject({ name: 'ChainBrokenError', seq: seqs[4] });
    expect(lastSeq(desk.db, 'events')).toBe(seqs.at(-1));
  });

  it('keeps its head across a restart and re-checks at sign-in', async () => {
    const { desk, seqs } = await syncedDesk(12);
    const head = desk.db.prepare('SELECT seq, hex(hash) AS hash FROM team_chain').get() as {
      seq: number;
      hash: string;
    };
    expect(head.seq).toBe(seqs.at(-1));
    await asSuperuser('UPDATE team.events SET amount_minor = 1 WHERE seq = $1', [seqs[0]]);
    await restart(desk);
    expect(desk.sync.status().chain.verifiedSeq).toBe(seqs.at(-1));
    await desk.sync.pullNow();
    for (const end = Date.now() + 10_000; !desk.sync.status().chain.broken && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    expect(desk.sync.status().chain.broken?.seq).toBe(seqs[0]);
  });

  it('keeps its alarm across a restart: shown at once, before any check; cleared for good once the record matches again', async () => {
    const { desk, seqs } = await syncedDesk(12);
    const victim = seqs[4]!;
    await asSuperuser("UPDATE team.events SET note = 'forged' WHERE seq = $1", [victim]);
    const found = (await desk.sync.recheckChain()).broken;
    expect(found).toEqual({ seq: victim, reason: expect.stringMatching(/content is not what was recorded/) });

    // Restarted with the database out of reach: nothing is checked, the alarm is there all the same.
    await desk.sync.close();
    desk.sync = startTeamSync({
      pool: openTeamPool('postgres://nobody@127.0.0.1:1/none'),
      db: desk.db,
      ledger,
      clock: systemClock,
      logger: quietLogger,
      pollEveryMs: 60_000,
    });
    expect(desk.sync.status().chain.broken).toEqual(found);
    expect(desk.sync.status().chain.verifiedSeq).toBe(seqs.at(-1));

    // Put back: the next re-check clears it, and a restart does not bring it back.
    await asSuperuser('UPDATE team.events SET note = NULL WHERE seq = $1', [victim]);
    await restart(desk);
    expect(desk.sync.status().chain.broken).toEqual(found);
    expect((await desk.sync.recheckChain()).broken).toBeNull();
    await restart(desk);
    expect(desk.sync.status().chain.broken).toBeNull();
  });
});

describe('a new desk', () => {
  it('refuses a snapshot whose events do not match their chain, and its replay stops at the break with the alarm', async () => {
    const publisher = team.signIn(await team.addOperator('back_office'));
    const seqs = await write(history(120, 'MD-CHAINSNAP', 9));
    const published = await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: tempDir() });
    const original = path.join(tempDir(), 'published.sqlite');
    await downloadSnapshot(publisher, published, original);

    // The superuser rewrites an event's note in the record, and a snapshot to agree with it.
    const victim = seqs[30]!;
    const key = (await team.owner.query('SELECT event_key FROM team.events WHERE seq = $1', [victim])).rows[0]
      .event_key;
    await asSuperuser("UPDATE team.events SET note = 'settled by phone' WHERE seq = $1", [victim]);
    const file = path.join(tempDir(), 'edited.sqlite');
    fs.copyFileSync(original, file);
    const snap = new Database(file);
    snap.exec('DROP TRIGGER collection_events_no_update');
    snap.prepare("UPDATE collection_events SET note = 'settled by phone' WHERE dedupe_key = ?").run(key);
    snap.exec(
      "CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events\nBEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END",
    );
    snap.close();
    await storeSnapshot(publisher, file, {
      uptoSeq: published.uptoSeq,
      schemaVersion: published.schemaVersion,
      events: published.events,
      collections: published.collections,
    });

    const db = openDatabase(path.join(tempDir(), 'desk.sqlite'));
    const warnings: string[] = [];
    const sync = startTeamSync({
      pool: team.owner,
      db,
      ledger,
      clock: systemClock,
      logger: { info() {}, warn: (o: object) => void warnings.push(String((o as { reason?: string }).reason ?? '')) },
      pollEveryMs: 600_000,
      bulkChunk: 50,
    });
    try {
      await expect(sync.pullNow()).rejects.toMatchObject({ name: 'ChainBrokenError', seq: victim });
      expect(warnings[0]).toMatch(new RegExp(`the record's hash chain does not match at seq ${victim}: its content`));
      expect(sync.status().chain.broken?.seq).toBe(victim);
      // The replay copied nothing past the break, and recorded no seq (it starts over at the next pull).
      expect(lastSeq(db, 'events')).toBe(0);
      const copied = db.prepare('SELECT count(*) FROM collection_events WHERE dedupe_key = ?').pluck().get(key);
      expect(copied).toBe(0);
    } finally {
      await sync.close();
      db.close();
    }
  });
});
