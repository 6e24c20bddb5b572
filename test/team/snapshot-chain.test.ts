// A new desk checks a snapshot against the team's hash chain, from the file (main/team/snapshot/chain.ts):
// on a real PostgreSQL, what someone who can write the snapshot file, but not team.events, can forge in
// what the file keeps of each event beside its row (snapshot_chain), and that every such forgery is
// refused, named, and the desk replays instead, ending as the replay does. Above all a file whose every
// hash and mark was recomputed after an edit, so that it is consistent in itself: it arrives at another
// head than the record's.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db } from '../../main/store/sqlite/connection.js';
import { keptHead, keptMarks } from '../../main/store/sqlite/team/chain-head.js';
import { canonicalContents } from '../../main/store/sqlite/team/snapshot-chain.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { GENESIS } from '../../main/team/chain.js';
import { startsBlock } from '../../main/team/snapshot/chain-event.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { downloadSnapshot, storeSnapshot, type SnapshotInfo } from '../../main/team/snapshot/store.js';
import { type TeamSyncOptions } from '../../main/team/sync/pull.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { history, record } from './new-desk.js';
import { fileTempDir as tempDir } from '../support/tmp.js';
import { newDeskCaughtUp } from './sync-desk.js';

/** A new desk caught up once, in small batches and bulk chunks so that a few thousand events take several. */
const newDesk = (over: Partial<TeamSyncOptions> = {}) =>
  newDeskCaughtUp(team.owner, { batchSize: 300, bulkChunk: 700, ...over });

let team: TeamFixture;
let publisher: pg.Pool;
let published: SnapshotInfo;
let original: string;
let reference: ReturnType<typeof record>;
let replayHead: ReturnType<typeof keptHead>;
let replayMarks: ReturnType<typeof keptMarks>;

async function write(events: readonly NewTeamEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await appendEvents(team.owner, events.slice(i, i + 1000));
}

/** The published file, edited by `edit`, published again by the same login with the same seq and counts. */
async function republishEdited(edit: (db: Database.Database) => void): Promise<void> {
  const file = path.join(tempDir(), 'edited.sqlite');
  fs.copyFileSync(original, file);
  const db = new Database(file);
  edit(db);
  db.close();
  await storeSnapshot(publisher, file, {
    uptoSeq: published.uptoSeq,
    schemaVersion: published.schemaVersion,
    events: published.events,
    collections: published.collections,
  });
}

/** `fn` run with one of collection_events' append-only triggers lifted, then made again as it was. */
function without(db: Database.Database, trigger: string, fn: () => void): void {
  const sql = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(trigger) as string;
  db.exec(`DROP TRIGGER ${trigger}`);
  fn();
  db.exec(sql);
}

/** An UPDATE of collection_events past its append-only trigger. */
function updateEvent(db: Database.Database, sql: string, ...params: unknown[]): void {
  without(db, 'collection_events_no_update', () => db.prepare(sql).run(...params));
}

/**
 * What a forger who knows how the desk checks would do after an edit: every event's hash computed again
 * from the file's own content, and every mark written to agree, so each block checks out against its
 * mark. Only the last hash, which the desk compares with team.events, cannot be made to agree.
 */
function recomputeChain(db: Database.Database): void {
  const setMark = db.prepare('UPDATE snapshot_chain SET mark = ? WHERE id = ?');
  const events = db.prepare('SELECT count(*) FROM snapshot_chain').pluck().get() as number;
  let prev = GENESIS;
  let prevSeq = 0;
  const rows = [...canonicalContents(db as unknown as Db, 0, events)];
  for (const [id, seq, content] of rows) {
    const hash = crypto.createHash('sha256').update(prev).update(content).digest();
    if (startsBlock(prevSeq, seq)) setMark.run(hash, id);
    prev = hash;
    prevSeq = seq;
  }
}

beforeAll(async () => {
  team = await teamFixture();
  publisher = team.signIn(await team.addOperator('back_office', 'nightly'));
  // More than two blocks of MARK_EVERY seqs, so that a forgery can sit between marks.
  await write(history(900, 'MD-CHN', 31));
  published = await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: tempDir() });
  expect(published.events).toBeGreaterThan(2500);
  original = path.join(tempDir(), 'published.sqlite');
  await downloadSnapshot(publisher, published, original);
  const replay = await newDesk({ snapshots: false });
  expect(replay.from).toBe('replay');
  reference = record(replay.db);
  replayHead = keptHead(replay.db);
  replayMarks = keptMarks(replay.db, published.uptoSeq);
  replay.db.close();
});
afterAll(async () => {
  await team?.close();
});

describe('a new desk checking a snapshot against the hash chain', () => {
  it('takes the published snapshot, and keeps the chain head and the marks a replay keeps', async () => {
    await republishEdited(() => {});
    const desk = await newDesk();
    expect(desk.warnings).toEqual([]);
    expect(desk.from).toBe('snapshot');
    expect(record(desk.db).events).toEqual(reference.events);
    expect(keptHead(desk.db)).toEqual(replayHead);
    expect(keptMarks(desk.db, published.uptoSeq)).toEqual(replayMarks);
    expect(replayMarks.length).toBeGreaterThanOrEqual(2);
    desk.db.close();
  });

  it.each([
    [
      "a writer's note the record does not have, in what the file keeps beside an event",
      (db: Database.Database) => db.exec("UPDATE snapshot_chain SET note = 'refunded by phone' WHERE id = 700"),
      /snapshot_chain row 700 \(seq \d+\): note is "refunded by phone", the record says null/,
    ],
    [
      'a callback whose kept evidence is another signature',
      (db: Database.Database) => {
        const id = db
          .prepare("SELECT id FROM collection_events WHERE source = 'callback' AND id > 1200 ORDER BY id LIMIT 1")
          .pluck()
          .get() as number;
        db.prepare("UPDATE snapshot_chain SET evidence = 'hmac-signature: forged' WHERE id = ?").run(id);
      },
      /snapshot_chain row \d+ \(seq \d+\): evidence is "hmac-signature: forged", the record says /,
    ],
    [
      'an actor edited, every hash and mark after it recomputed to agree (consistent in itself)',
      (db: Database.Database) => {
        updateEvent(db, "UPDATE collection_events SET actor = 'someone_else' WHERE id = 1500");
        recomputeChain(db);
      },
      /collection_events row 1500 \(seq \d+\): actor is "someone_else", the record says /,
    ],
    [
      'a status in an earlier block, the later marks recomputed',
      (db: Database.Database) => {
        const id = db
          .prepare(
            "SELECT id FROM collection_events WHERE source = 'callback' AND status = 'FAILED' AND id > 300 ORDER BY id LIMIT 1",
          )
          .pluck()
          .get() as number;
        updateEvent(db, "UPDATE collection_events SET status = 'COMPLETED' WHERE id = ?", id);
        recomputeChain(db);
      },
      /collection_events row \d+ \(seq \d+\): status is "COMPLETED", the record says "FAILED"/,
    ],
    [
      'a mark that is not the hash of its event',
      (db: Database.Database) =>
        db.exec(
          'UPDATE snapshot_chain SET mark = zeroblob(32) WHERE id = (SELECT max(id) FROM snapshot_chain WHERE mark IS NOT NULL)',
        ),
      /its events up to seq \d+ do not hash to the mark it keeps there/,
    ],
    [
      "an intent's payload kept twice, in its row and beside it",
      (db: Database.Database) =>
        updateEvent(
          db,
          'UPDATE collection_events SET payload = (SELECT payload FROM snapshot_chain s WHERE s.id = collection_events.id) WHERE id = (SELECT min(id) FROM snapshot_chain WHERE payload IS NOT NULL AND id > 10)',
        ),
      /collection_events row \d+ \(seq \d+\): (payload is|its payload is also)/,
    ],
    [
      "its last events missing, though it says it ends at the record's seq",
      (db: Database.Database) => {
        const last = db.prepare('SELECT max(id) FROM snapshot_chain').pluck().get() as number;
        without(db, 'collection_events_no_delete', () =>
          db.prepare('DELETE FROM collection_events WHERE id > ?').run(last - 5),
        );
        db.prepare('DELETE FROM snapshot_chain WHERE id > ?').run(last - 5);
      },
      /it keeps the chain of events 1 to \d+, not of its \d+/,
    ],
    [
      'two events swapped, with their chain rows',
      (db: Database.Database) => {
        const [a, b] = [2000, 2001];
        without(db, 'collection_events_no_update', () => {
          for (const t of ['collection_events', 'snapshot_chain']) {
            db.prepare(`UPDATE ${t} SET id = -1 WHERE id = ?`).run(a);
            db.prepare(`UPDATE ${t} SET id = ? WHERE id = ?`).run(a, b);
            db.prepare(`UPDATE ${t} SET id = ? WHERE id = -1`).run(b);
          }
        });
      },
      /its event 2001 is not the one after seq \d+ in order|collection_events row 2000 \(seq \d+\): \w+ is /,
    ],
  ])('refuses a snapshot with %s, says why, and replays instead', async (_what, edit, reason) => {
    await republishEdited(edit);
    const desk = await newDesk();
    expect(desk.from).toBe('replay');
    expect(desk.warnings).toHaveLength(1);
    expect(desk.warnings[0]).toMatch(reason);
    const got = record(desk.db);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    desk.db.close();
  });
});
