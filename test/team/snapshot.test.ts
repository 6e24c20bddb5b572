// A new desk's start from the team's snapshot (main/team/snapshot/) on a real PostgreSQL: published by
// a back_office login, taken by a new desk after it checks every row against the record, the result is
// the replay's row for row; a snapshot that is not the record (an edited actor, status or extra row, or
// damaged bytes) is refused with the reason, and the desk replays instead; only back_office and admin
// may publish, and PostgreSQL, not the publisher, says who did.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { TeamPermissionError } from '../../main/team/errors.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { downloadSnapshot, newestSnapshot, storeSnapshot, type SnapshotInfo } from '../../main/team/snapshot/store.js';
import { snapshotSchemaVersion } from '../../main/team/snapshot/verify.js';
import { type TeamSyncOptions } from '../../main/team/sync/pull.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { history, record, schema } from './new-desk.js';
import type pg from 'pg';
import { fileTempDir as tempDir } from '../support/tmp.js';
import { newDeskCaughtUp } from './sync-desk.js';

/** A new desk caught up once, in small batches and bulk chunks so that a few thousand events take several. */
const newDesk = (over: Partial<TeamSyncOptions> = {}) =>
  newDeskCaughtUp(team.owner, { batchSize: 300, bulkChunk: 700, ...over });

let team: TeamFixture;
let publisher: pg.Pool;
let publisherLogin: string;

beforeAll(async () => {
  team = await teamFixture();
  publisherLogin = await team.addOperator('back_office', 'nightly');
  publisher = team.signIn(publisherLogin);
});
afterAll(async () => {
  await team?.close();
});

async function write(events: readonly NewTeamEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await appendEvents(team.owner, events.slice(i, i + 1000));
}

/** A new desk caught up once; `from` says whether it started from the snapshot or replayed. */
/** A freshly migrated desk's schema. */
function migratedSchema() {
  const db = openDatabase(path.join(tempDir(), 'fresh.sqlite'));
  const s = schema(db);
  db.close();
  return s;
}

/** The published snapshot's SQLite file (as downloaded), edited by `edit`, published again by the same login. */
async function republishEdited(
  info: SnapshotInfo,
  original: string,
  edit: (db: Database.Database) => void,
): Promise<void> {
  const file = path.join(tempDir(), 'edited.sqlite');
  fs.copyFileSync(original, file);
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  edit(db);
  db.close();
  await storeSnapshot(publisher, file, {
    uptoSeq: info.uptoSeq,
    schemaVersion: info.schemaVersion,
    events: info.events,
    collections: info.collections,
  });
}

/** An UPDATE of collection_events past its append-only trigger, which is made again as it was. */
function updateEvent(db: Database.Database, sql: string): void {
  const trigger = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'collection_events_no_update'").pluck().get();
  db.exec('DROP TRIGGER collection_events_no_update');
  db.exec(sql);
  db.exec(String(trigger));
}

/**
 * Makes the snapshot's unique index on collections.merchant_reference say that `a`'s reference is at
 * `b`'s row and `b`'s at `a`'s, while both rows keep their own references: the table is swapped with
 * the index kept up to date, then swapped back with the index hidden from SQLite (writable_schema), so
 * the rows are the record's and only the index lies. The schema text ends as it was.
 */
function forgeReferenceIndex(
  db: Database.Database,
  a: { id: number; merchant_reference: string },
  b: { id: number; merchant_reference: string },
): void {
  db.pragma('foreign_keys = OFF');
  /** Row a gets reference `atA`, row b `atB`. */
  const assign = (d: Database.Database, atA: string, atB: string) => {
    const set = d.prepare('UPDATE collections SET merchant_reference = ? WHERE id = ?');
    set.run('MD-SWAP-TMP', a.id);
    set.run(atB, b.id);
    set.run(atA, a.id);
  };
  assign(db, b.merchant_reference, a.merchant_reference); // the index follows: a's reference -> b's row, b's -> a's
  const index = db
    .prepare(
      "SELECT name, rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'collections' AND sql IS NULL",
    )
    .get() as { name: string; rootpage: number };
  const tableSql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'collections'").pluck().get() as string;
  expect(tableSql).toContain('merchant_reference TEXT NOT NULL UNIQUE');
  db.exec('CREATE TABLE hidden (merchant_reference TEXT)');
  db.unsafeMode(true); // better-sqlite3's defensive mode refuses writable_schema otherwise
  db.pragma('writable_schema = ON');
  db.prepare("UPDATE sqlite_master SET sql = ? WHERE name = 'collections'").run(
    tableSql.replace('merchant_reference TEXT NOT NULL UNIQUE', 'merchant_reference TEXT NOT NULL'),
  );
  // Moved after the table it now names, which SQLite must read first.
  const at = db.prepare('SELECT rowid FROM sqlite_master WHERE name = ?').pluck().get(index.name) as number;
  db.prepare(
    `UPDATE sqlite_master SET rowid = (SELECT max(rowid) + 1 FROM sqlite_master), name = 'hidden_ref', tbl_name = 'hidden',
       sql = 'CREATE UNIQUE INDEX hidden_ref ON hidden (merchant_reference)' WHERE name = ?`,
  ).run(index.name);
  db.pragma('writable_schema = OFF');
  db.close();
  const hidden = new Database(db.name);
  hidden.pragma('foreign_keys = OFF');
  assign(hidden, a.merchant_reference, b.merchant_reference); // the rows back to the record's; the hidden index is not told
  hidden.unsafeMode(true);
  hidden.pragma('writable_schema = ON');
  hidden.prepare("UPDATE sqlite_master SET sql = ? WHERE name = 'collections'").run(tableSql);
  hidden
    .prepare(
      "UPDATE sqlite_master SET rowid = ?, name = ?, tbl_name = 'collections', sql = NULL WHERE name = 'hidden_ref'",
    )
    .run(at, index.name);
  hidden.pragma('writable_schema = OFF');
  hidden.close();
  const again = new Database(db.name);
  again.exec('DROP TABLE hidden');
  again.close();
}

describe('a new desk started from the team snapshot', () => {
  let reference: ReturnType<typeof record>;
  let published: SnapshotInfo;
  let original: string;

  it('is published by back_office, checked row by row, and ends equal to the replay', async () => {
    await write(history(1500, 'MD-SNAP', 21));
    published = await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: tempDir() });
    const total = Number((await team.owner.query<{ n: string }>('SELECT count(*) AS n FROM team.events')).rows[0]!.n);
    expect(published.events).toBe(total);
    expect(published.collections).toBeGreaterThan(1400);
    expect(published.madeBy).toBe(publisherLogin);
    expect(published.schemaVersion).toBe(snapshotSchemaVersion());
    original = path.join(tempDir(), 'published.sqlite');
    await downloadSnapshot(publisher, published, original);
    // Written after the snapshot: a desk takes these through the incremental path.
    await write(history(30, 'MD-SNAPLATE', 22));

    const replay = await newDesk({ snapshots: false });
    expect(replay.from).toBe('replay');
    reference = record(replay.db);
    expect(reference.events.length).toBeGreaterThan(total);

    const desk = await newDesk();
    expect(desk.warnings).toEqual([]);
    expect(desk.from).toBe('snapshot');
    expect(lastSeq(desk.db, 'events')).toBe(lastSeq(replay.db, 'events'));
    const got = record(desk.db);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);
    expect(got.indexes).toEqual(reference.indexes);
    // Its triggers (dropped for the copy) are back, and nothing else came along.
    expect(schema(desk.db)).toEqual(migratedSchema());
    expect(() => desk.db.exec('UPDATE collection_events SET note = 1 WHERE id = 1')).toThrow(/append-only/);
    expect(fs.readdirSync(path.dirname(desk.db.name)).filter((f) => f.includes('snapshot'))).toEqual([]);
    replay.db.close();
    desk.db.close();
  });

  it.each([
    [
      'an event with another actor',
      (db: Database.Database) => {
        db.exec('DROP TRIGGER collection_events_no_update');
        db.exec("UPDATE collection_events SET actor = 'someone_else' WHERE id = 40");
        db.exec(
          "CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events\nBEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END",
        );
      },
      /collection_events row 40 .*actor is "someone_else"/,
    ],
    [
      'a collection shown COMPLETED that its events do not complete',
      (db: Database.Database) => {
        const id = db.prepare("SELECT id FROM collections WHERE status = 'FAILED' LIMIT 1").pluck().get() as number;
        db.prepare("UPDATE collections SET status = 'COMPLETED' WHERE id = ?").run(id);
      },
      /collections row \d+ \(its projection of the events\): status is "COMPLETED"/,
    ],
    [
      'an outcome stored as a changed final status',
      (db: Database.Database) => {
        db.exec('DROP TRIGGER collection_events_no_update');
        const id = db
          .prepare("SELECT id FROM collection_events WHERE source = 'callback' AND kind = 'outcome' LIMIT 1 OFFSET 9")
          .pluck()
          .get() as number;
        db.prepare("UPDATE collection_events SET kind = 'final_status_changed' WHERE id = ?").run(id);
        db.exec(
          "CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events\nBEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END",
        );
      },
      /collection_events row \d+ \(seq \d+\): kind is "final_status_changed", the record says "outcome"/,
    ],
    [
      "a payload stored as bytes instead of the record's text",
      (db: Database.Database) => {
        db.exec('DROP TRIGGER collection_events_no_update');
        db.exec(
          "UPDATE collection_events SET payload = CAST(payload AS BLOB) WHERE id = (SELECT min(id) FROM collection_events WHERE source = 'callback')",
        );
        db.exec(
          "CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events\nBEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END",
        );
      },
      /collection_events row \d+ \(seq \d+\): payload is \d+ bytes \(not text\), the record says "\{/,
    ],
    [
      "a reference stored as JSONB bytes, which SQLite's JSON functions write as the record's text",
      (db: Database.Database) => {
        db.exec('DROP TRIGGER collection_events_no_update');
        db.exec(
          'UPDATE collection_events SET merchant_reference = jsonb(json_quote(merchant_reference)) WHERE id = 40',
        );
        db.exec(
          "CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events\nBEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END",
        );
      },
      /collection_events row 40: merchant_reference holds bytes, the record has text/,
    ],
    [
      "a customer's name stored as JSONB bytes, which SQLite's JSON functions write as the record's text",
      (db: Database.Database) => {
        db.exec(
          'UPDATE collections SET customer_name = jsonb(json_quote(customer_name)) WHERE id = (SELECT min(id) FROM collections WHERE customer_name IS NOT NULL)',
        );
      },
      /collections row \d+: customer_name holds bytes, the record has text/,
    ],
    [
      'an event the record does not have',
      (db: Database.Database) => {
        db.exec(`INSERT INTO collection_events (collection_id, merchant_reference, source, kind, status, received_at, signature, dedupe_key)
                 VALUES (1, 'MD-SNAP-1', 'manual', 'manual_status', 'COMPLETED', 1, 'not_applicable', 'forged:1')`);
      },
      /collection_events row \d+, which no event of the record makes/,
    ],
    [
      'a ghost collection (id 0) COMPLETED for 999,999 KES that no intent of the record makes',
      (db: Database.Database) => {
        db.exec('CREATE TEMP TABLE ghost AS SELECT * FROM collections WHERE id = 1');
        db.exec(
          "UPDATE ghost SET id = 0, merchant_reference = 'MD-GHOST', amount_minor = 99999900, currency = 'KES', status = 'COMPLETED'",
        );
        db.exec('INSERT INTO collections SELECT * FROM ghost');
      },
      /collections row 0, which no intent of the record makes/,
    ],
    [
      'its last collection moved to id 100,000, past a gap wider than the range of ids the check reads at once',
      (db: Database.Database) => {
        // Its events keep their collection_id: the id alone moves (a forger's edit, past the keys' check).
        db.pragma('foreign_keys = OFF');
        db.exec('UPDATE collections SET id = 100000 WHERE id = (SELECT max(id) FROM collections)');
      },
      /it has no collections row \d+ \(the intent of seq \d+\)/,
    ],
    [
      'a resolution (id -5) attributed to the admin that the record never had',
      (db: Database.Database) => {
        db.exec(`INSERT INTO collection_events (id, collection_id, merchant_reference, source, kind, status, received_at, signature, dedupe_key, actor)
                 VALUES (-5, 1, 'MD-SNAP-1', 'manual', 'resolution', 'COMPLETED', 1, 'not_applicable', 'forged:-5', 'admin')`);
      },
      /collection_events row -5, which no event of the record makes/,
    ],
    [
      'collection_events with two columns swapped in order (note and actor: the same names, the same count)',
      (db: Database.Database) => {
        const sql = db
          .prepare("SELECT sql FROM sqlite_master WHERE name = 'collection_events'")
          .pluck()
          .get() as string;
        expect(sql).toContain('note TEXT,\n  actor TEXT');
        db.unsafeMode(true); // better-sqlite3's defensive mode refuses writable_schema otherwise
        db.pragma('writable_schema = ON');
        db.prepare("UPDATE sqlite_master SET sql = ? WHERE name = 'collection_events'").run(
          sql.replace('note TEXT,\n  actor TEXT', 'actor TEXT,\n  note TEXT'),
        );
        db.pragma('writable_schema = OFF');
      },
      /its collection_events table is not this desk's: column 14 is actor TEXT, this desk's is note TEXT/,
    ],
    [
      'a collection_id held as text, a column the chain does not bind',
      (db: Database.Database) => {
        db.pragma('foreign_keys = OFF');
        updateEvent(db, "UPDATE collection_events SET collection_id = 'MD-SNAP-1' WHERE id = 40");
      },
      /collection_events row 40: the stored column collection_id holds text, not an integer/,
    ],
    [
      "a collection's amount held as text",
      (db: Database.Database) => db.exec("UPDATE collections SET amount_minor = 'lots' WHERE id = 5"),
      /collections row 5 \(the intent of seq \d+\): the stored column amount_minor holds text, not an integer/,
    ],
    [
      "a collection's last event id held as a real number",
      (db: Database.Database) => db.exec('UPDATE collections SET last_event_id = last_event_id + 0.5 WHERE id = 7'),
      /collections row 7 \(its projection of the events\): the stored column last_event_id holds a real number, not an integer/,
    ],
  ])('refuses a snapshot with %s, says why, and replays instead', async (_what, edit, reason) => {
    await republishEdited(published, original, edit);
    const desk = await newDesk();
    expect(desk.from).toBe('replay');
    expect(desk.warnings).toHaveLength(1);
    expect(desk.warnings[0]).toMatch(reason);
    const got = record(desk.db);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);
    desk.db.close();
  });

  it('takes no index from a snapshot: a forged merchant_reference index cannot send a callback to another collection', async () => {
    // Two collections still waiting for their outcome: the forged index says A is at B's row and B at A's,
    // while every row is the record's (the check compares rows, and they all match).
    const probe = new Database(original, { readonly: true });
    const [a, b] = probe
      .prepare("SELECT id, merchant_reference FROM collections WHERE status = 'PENDING' ORDER BY id LIMIT 2")
      .all() as { id: number; merchant_reference: string }[];
    probe.close();
    await republishEdited(published, original, (db) => forgeReferenceIndex(db, a!, b!));
    // The next callback for A, written after the snapshot.
    await write([
      {
        eventKey: `callback:${a!.merchant_reference}:late-failed`,
        merchantReference: a!.merchant_reference,
        internalReference: `INT-${a!.merchant_reference}`,
        source: 'callback',
        kind: 'outcome',
        status: 'FAILED',
        signature: 'verified',
        payload: '{}',
        occurredAt: Date.now(),
      },
    ]);
    const replay = await newDesk({ snapshots: false });
    const desk = await newDesk();
    expect(desk.warnings).toEqual([]);
    expect(desk.from).toBe('snapshot');
    const statusOf = (db: Db, id: number) =>
      db.prepare('SELECT merchant_reference, status FROM collections WHERE id = ?').get(id);
    expect(statusOf(desk.db, a!.id)).toEqual({ merchant_reference: a!.merchant_reference, status: 'FAILED' });
    expect(statusOf(desk.db, b!.id)).toEqual({ merchant_reference: b!.merchant_reference, status: 'PENDING' });
    expect(record(desk.db).collections).toEqual(record(replay.db).collections);
    expect(desk.db.pragma('integrity_check', { simple: true })).toBe('ok');
    reference = record(replay.db);
    replay.db.close();
    desk.db.close();
  });

  it('refuses damaged bytes', async () => {
    published = await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: tempDir() });
    await team.owner.query(
      `UPDATE team.snapshot_parts SET data = overlay(data PLACING '\\x00ff'::bytea FROM 100) WHERE snapshot_id = $1 AND part = 0`,
      [published.id],
    );
    const desk = await newDesk();
    expect(desk.from).toBe('replay');
    expect(desk.warnings[0]).toMatch(/damaged/);
    expect(record(desk.db).events).toEqual(reference.events);
    desk.db.close();
  });

  it('refuses a file SQLite cannot read, and replays', async () => {
    const junk = path.join(tempDir(), 'junk.sqlite');
    fs.writeFileSync(junk, Buffer.alloc(300_000, 7));
    await storeSnapshot(publisher, junk, {
      uptoSeq: published.uptoSeq,
      schemaVersion: published.schemaVersion,
      events: published.events,
      collections: published.collections,
    });
    const desk = await newDesk();
    expect(desk.from).toBe('replay');
    expect(desk.warnings[0]).toMatch(/not a database/);
    expect(record(desk.db).events).toEqual(reference.events);
    desk.db.close();
  });

  it('only back_office and admin publish; PostgreSQL records who, and keeps the newest only', async () => {
    for (const role of ['support', 'finance'] as const) {
      const pool = team.signIn(await team.addOperator(role));
      await expect(publishSnapshot({ pool, now: () => Date.now(), scratchDir: tempDir() })).rejects.toBeInstanceOf(
        TeamPermissionError,
      );
    }
    const admin = await team.addOperator('admin');
    const made = await publishSnapshot({ pool: team.signIn(admin), now: () => Date.now(), scratchDir: tempDir() });
    expect(made.madeBy).toBe(admin);
    const all = await team.owner.query('SELECT id FROM team.snapshots');
    expect(all.rows).toEqual([{ id: String(made.id) }]);
    // A publisher cannot say someone else made it.
    await expect(
      publisher.query(
        `INSERT INTO team.snapshots (upto_seq, schema_version, events, collections, bytes, sha256, parts, made_by)
         VALUES (1, 1, 1, 0, 1, sha256(''), 1, 'someone_else')`,
      ),
    ).rejects.toThrow(/permission denied/);
    expect((await newestSnapshot(publisher, snapshotSchemaVersion()))?.madeBy).toBe(admin);
  });
});
