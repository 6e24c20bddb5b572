// A new desktop's bulk start (main/team/sync/bulk.ts) against the incremental path on a real
// PostgreSQL: the same generated history, with every kind of event, caught up both ways into fresh
// SQLite files gives the same collections, history and reconciliation, row for row; so does a copy
// cut short and restarted, and events written while the copy runs arrive after it.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { startTeamSync, type TeamSync, type TeamSyncOptions } from '../../main/team/sync/pull.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { wantsBulkStart } from '../../main/team/sync/bulk.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { quietLogger } from './sync-desk.js';
import { history, record, schema } from './new-desk.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

let team: TeamFixture;

beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  await team?.close();
});

async function write(events: readonly NewTeamEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await appendEvents(team.owner, events.slice(i, i + 1000));
}

interface Desktop {
  file: string;
  db: Db;
  sync: TeamSync;
}

function desktop(over: Partial<TeamSyncOptions> = {}, file?: string): Desktop {
  if (!file) {
    const dir = fileTempDir('md-teambulk-');
    file = path.join(dir, 'desk.sqlite');
  }
  const db = openDatabase(file);
  const sync = startTeamSync({
    pool: team.owner,
    db,
    ledger,
    clock: systemClock,
    logger: quietLogger,
    pollEveryMs: 600_000,
    batchSize: 300,
    bulkChunk: 700,
    ...over,
  });
  return { file, db, sync };
}

async function shut(d: Desktop): Promise<void> {
  await d.sync.close();
  d.db.close();
}

/** A freshly migrated desk's schema: what a bulk start must leave behind, its dropped triggers and indexes made again. */
function migratedSchema() {
  const dir = fileTempDir('md-teambulk-');
  const db = openDatabase(path.join(dir, 'fresh.sqlite'));
  const s = schema(db);
  db.close();
  return s;
}

describe('a desk that is behind', () => {
  it('says "catching up: N of M" while it drains batch after batch, and stops saying it when it is up to date', async () => {
    const desk = desktop({ bulkStart: false, batchSize: 50 });
    await desk.sync.pullNow();
    await write(history(120, 'MD-BEHIND', 9));
    const seen: { copiedSeq: number; totalSeq: number }[] = [];
    const stop = desk.sync.onStatus((s) => {
      if (s.catchingUp) seen.push(s.catchingUp);
    });
    await desk.sync.pullNow();
    stop();
    const newest = Number((await team.owner.query<{ n: string }>('SELECT max(seq) AS n FROM team.events')).rows[0]!.n);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((p) => p.totalSeq === newest && p.copiedSeq < newest)).toBe(true);
    expect(seen.map((p) => p.copiedSeq)).toEqual([...seen.map((p) => p.copiedSeq)].sort((a, b) => a - b));
    expect(desk.sync.status().catchingUp).toBeNull();
    expect(lastSeq(desk.db, 'events')).toBe(newest);
    await shut(desk);
  });
});

describe('bulk start of a new team desktop', () => {
  let reference: ReturnType<typeof record>;

  it('copies the history as the incremental path applies it, and takes what arrives during the copy after', async () => {
    const main = history(2000, 'MD-BULK', 7);
    const late = history(40, 'MD-LATE', 8);
    await write(main);
    await write([
      // An intent written twice (two desktops racing) is one event; so is a repeated callback.
      ...main.slice(0, 5),
    ]);

    let during: Promise<void> | undefined;
    const copied: number[] = [];
    const bulk = desktop({ onCopied: (n) => copied.push(n) });
    expect(wantsBulkStart(bulk.db)).toBe(true);
    const seen: number[] = [];
    bulk.sync.onStatus((s) => {
      if (s.catchingUp) {
        seen.push(s.catchingUp.copiedSeq);
        during ??= write(late);
      }
    });
    await bulk.sync.pullNow();
    await during;
    await bulk.sync.pullNow();
    expect(seen.length).toBeGreaterThan(3);
    expect(bulk.sync.status().catchingUp).toBeNull();
    // The screens are told once, when the copy is done (not once per collection).
    expect(copied).toHaveLength(1);
    expect(copied[0]).toBeGreaterThan(2000);

    const incremental = desktop({ bulkStart: false });
    await incremental.sync.pullNow();
    const total = Number((await team.owner.query<{ n: string }>('SELECT count(*) AS n FROM team.events')).rows[0]!.n);
    expect(lastSeq(bulk.db, 'events')).toBe(lastSeq(incremental.db, 'events'));

    reference = record(incremental.db);
    expect(reference.events.length).toBe(total);
    expect(reference.collections.length).toBeGreaterThan(1900);
    const got = record(bulk.db);
    expect(got.indexes).toEqual(reference.indexes);
    const fresh = migratedSchema();
    expect(fresh.some((r) => (r as { name: string }).name === 'collection_events_no_replace_key')).toBe(true);
    expect(schema(bulk.db)).toEqual(fresh);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);

    // The history really has every case the projection rules tell apart.
    const kinds = new Set(reference.events.map((e) => (e as { kind: string }).kind));
    for (const k of ['final_status_changed', 'resolution', 'bad_signature', 'window_closed'])
      expect(kinds).toContain(k);
    expect(reference.events.some((e) => (e as { collection_id: number | null }).collection_id === null)).toBe(true);
    const flags = new Set(reference.collections.map((c) => (c as { flags: number }).flags));
    for (const f of [1, 2, 4, 8, 16]) expect([...flags].some((x) => x & f)).toBe(true);
    await Promise.all([shut(bulk), shut(incremental)]);
  });

  it('a copy cut short starts over on restart, skipping what it stored, and ends equal', async () => {
    const first = desktop();
    // A chunk that fails part way (a full disk, a crash) commits nothing of itself.
    const key = (reference.events[2500] as { dedupe_key: string }).dedupe_key;
    first.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON collection_events WHEN NEW.dedupe_key = '${key}'
                   BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
    await expect(first.sync.pullNow()).rejects.toThrow(/disk trouble/);
    const stored = first.db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(reference.events.length);
    expect(stored % 700).toBe(0); // whole chunks only
    expect(lastSeq(first.db, 'events')).toBe(0);
    first.db.exec('DROP TRIGGER refuse');
    await shut(first);

    const again = desktop({}, first.file);
    expect(wantsBulkStart(again.db)).toBe(true);
    await again.sync.pullNow();
    const got = record(again.db);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);
    expect(got.indexes).toEqual(reference.indexes);
    expect(schema(again.db)).toEqual(migratedSchema());

    // Stopped after the seq was recorded but before the reconciliation finished: the next start finishes it.
    again.db.exec('DELETE FROM reconciliation WHERE collection_id > 700');
    await shut(again);
    const third = desktop({}, first.file);
    expect(wantsBulkStart(third.db)).toBe(false);
    await third.sync.pullNow();
    expect(record(third.db).reconciliation).toEqual(reference.reconciliation);
    await shut(third);
  });
});
