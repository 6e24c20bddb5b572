// Checks a downloaded snapshot before a desk uses any of it: that its events are the record's (chain.ts:
// each event put back together from the file and hashed onto the one before, the last hash the one
// team.events holds at the snapshot's seq; run beside this on a thread of its own), and here, that every
// row the desk takes is what the replay makes of those events.
//
// A snapshot is what the bulk copy (sync/bulk.ts) writes into an EMPTY SQLite file from the events up
// to one seq, and that copy is deterministic: it gives ids in seq order (collections as their intents
// arrive, events one each, PostgreSQL's event keys being unique), maps each event with fromTeamEvent,
// creates a collection from its intent with intentFromTeamEvent, and folds the projection with
// projectEvent. So the snapshot's rows are walked in id order (row-replay.ts), each event put back
// together from its collection_events row and its snapshot_chain row (chain-event.ts teamEventOf), the
// same functions applied in memory, and every column of every event row and every collection row
// compared, types included. A single value that differs (an actor, a status, a flag, an extra or missing
// row) rejects the snapshot, naming the row and column. Until the chain check has passed, the events
// walked here are the file's word: a difference found here is reported as the record's when the record's
// own row at that seq no longer hashes as it was recorded (chain-explain.ts recordRowBroken), as the old
// check, which read every event from PostgreSQL, reported it.
//
// The reconciliation is not in the snapshot's trust at all: the desk that takes it computes it.
// Every row of the two tables the copy takes is compared, whatever its id (a row outside 1..N is
// refused). The indexes the copy brings along are not compared here: they are proven against the rows
// in the file, or rebuilt by the copy (start.ts, store/sqlite/team/snapshot-copy.ts).
import type pg from 'pg';
import { PROJECTION_COLUMNS } from '../../collections/event-rules.js';
import type { Db } from '../../store/sqlite/connection.js';
import { firstIdOutside, tableJsonCursor } from '../../store/sqlite/team/snapshot-file.js';
import { checkSnapshotSchema } from './file-schema.js';
import { projectionValues } from '../../store/sqlite/team/collection-projection.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { SnapshotRejectedError } from './rejected.js';
import { recordRowBroken } from './chain-explain.js';
import { differs, RowReplay, same, type Row } from './row-replay.js';

/**
 * Events read from the file at a time: a page's JSON text (about 300 bytes an event) and the arrays
 * parsed from it stay small enough for the CPU's caches and the young generation, as the chain's blob
 * pages do (chain.ts). Pages of 50,000 (a 15 MB text) cost the row check 12% more CPU in all, measured in
 * fresh processes on a 100,000-collection file (5.8-6.2 against 5.1-5.2 µs an event).
 */
const ROW_PAGE = 5_000;

/** The projection columns the events maintain, in projectionValues' order. */
const PROJECTION = ['id', ...PROJECTION_COLUMNS] as const;
const PROJECTION_INTEGERS = new Set(['id', 'status_changed_at', 'last_event_id', 'flags', 'final_changes']);

export { snapshotSchemaVersion } from './file-schema.js';

export interface VerifyOptions {
  pool: pg.Pool;
  /** The snapshot file, opened read-only by the caller. */
  snap: Db;
  uptoSeq: number;
  /** The events the file holds, by its publisher's word (ids 1..events; the chain check holds it to them). */
  events: number;
  /** Events read from the file at a time (default and most ROW_PAGE). */
  chunk?: number;
  onProgress?: (verifiedSeq: number) => void;
  stopped?: () => boolean;
  /**
   * The keys this desk checks signed events with (team/evidence.ts): the snapshot's rows must carry the
   * verdicts this desk reaches itself, as its replay would store them. None: the writers' word (tests).
   */
  keys?: SignatureKeys;
  /**
   * Take each signed event's verdict (signature, and the reason in its note) as the snapshot stored it,
   * when it is one a check could give, instead of checking the signature here: the desk re-checks those
   * after it shows its copy (sync/signature-check.ts), and meanwhile says so on each collection that
   * rests on one. Everything else is compared as without it.
   */
  deferSignatures?: boolean;
}

/**
 * Resolves with the counts when every row of the snapshot is what the bulk copy makes of the events the
 * file holds (as its chain rows put them back together: chain.ts proves those are the record's, up to
 * `uptoSeq`); rejects with SnapshotRejectedError saying the first difference; null when stopped.
 */
export async function verifySnapshot(
  o: VerifyOptions,
): Promise<{ events: number; collections: number; signed: number } | null> {
  const { snap } = o;
  checkSnapshotSchema(snap);
  const events = o.events;

  const chunk = Math.min(o.chunk ?? ROW_PAGE, ROW_PAGE);
  const replay = new RowReplay(snap, o);

  while (replay.eventId < events) {
    const n = Math.min(chunk, events - replay.eventId);
    try {
      replay.page(replay.eventId, n);
    } catch (e) {
      // Not the file's doing when the record's own row there no longer hashes as it was recorded.
      const seq = replay.seq;
      const broken = e instanceof SnapshotRejectedError && seq > 0 ? await recordRowBroken(o.pool, seq) : null;
      if (broken) throw new SnapshotRejectedError(broken);
      throw e;
    }
    o.onProgress?.(replay.seq);
    if (o.stopped?.()) return null;
    // Lets the worker's messages (stop, progress) through between pages.
    await new Promise<void>((r) => setImmediate(r));
  }
  noRowOutside(snap, replay.eventId, replay.collectionId);
  checkProjections(snap, replay.folded, replay.collectionId);
  return { events: replay.eventId, collections: replay.collectionId, signed: replay.signed };
}

/**
 * The walk compared ids 1..N of each table, one by one (a missing one shifts every row after it). The
 * copy takes every row, whatever its id: any row outside 1..N (0, negative, beyond) is one the record
 * does not make.
 */
function noRowOutside(snap: Db, eventId: number, collectionId: number): void {
  const extraEvent = firstIdOutside(snap, 'collection_events', eventId);
  if (extraEvent !== undefined)
    throw new SnapshotRejectedError(`it has collection_events row ${extraEvent}, which no event of the record makes`);
  const extraCollection = firstIdOutside(snap, 'collections', collectionId);
  if (extraCollection !== undefined)
    throw new SnapshotRejectedError(`it has collections row ${extraCollection}, which no intent of the record makes`);
}

/** Each collection's projection columns against what the events folded into it. */
function checkProjections(snap: Db, folded: RowReplay['folded'], collectionId: number): void {
  const projections = tableJsonCursor(snap, 'collections', PROJECTION, PROJECTION_INTEGERS);
  for (let id = 1; id <= collectionId; id++) {
    const p = folded[id]!;
    const row: Row = [id, ...projectionValues(p)];
    const got = projections.next();
    if (!same(row, got))
      differs('collections', PROJECTION, row, got, 'its projection of the events', PROJECTION_INTEGERS);
  }
}
