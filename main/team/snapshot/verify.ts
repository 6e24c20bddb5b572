// Checks a downloaded snapshot against the team record before a desk uses any of it.
//
// A snapshot is what the bulk copy (sync/bulk.ts) writes into an EMPTY SQLite file from the events up
// to one seq, and that copy is deterministic: it gives ids in seq order (collections as their intents
// arrive, events one each, PostgreSQL's event keys being unique), maps each event with fromTeamEvent,
// creates a collection from its intent with intentFromTeamEvent, and folds the projection with
// projectEvent. So the snapshot is checked by walking PostgreSQL's events in seq order and the
// snapshot's rows in id order side by side, both sequential (a page of each at a time, the next
// PostgreSQL page fetched while this one is compared), applying the same functions in memory and
// comparing every column of every event row and every collection row, types included. A single value
// that differs (an actor, a status, a flag, an extra or missing row) rejects the snapshot, naming the
// row and column.
//
// Tried and not kept: comparing each page as one text written the same way by both sides (in C by
// SQLite and by PostgreSQL, or in JS from the pulled rows). Building the texts cost more than comparing
// the values (about 0.8 s a page of 50,000 against 0.6 s).
//
// The events it walks must also continue their hash chain (team/chain.ts), page by page: a record
// whose chain does not match is not one a desk may start from, so the snapshot is refused naming the
// seq, and the desk's replay then stops at the same place with the alarm raised.
//
// The reconciliation is not in the snapshot's trust at all: the desk that takes it computes it.
// Every row of the two tables the copy takes is compared, whatever its id (a row outside 1..N is
// refused). The indexes the copy brings along are not compared: the copy rebuilds them from the rows
// (copy-worker.ts), so nothing of them is taken.
import type pg from 'pg';
import { PROJECTION_COLUMNS, projectEvent } from '../../collections/event-rules.js';
import { intentValues } from '../../collections/intent-row.js';
import type { Db } from '../../store/sqlite/connection.js';
import { migrations } from '../../store/sqlite/migrations/index.js';
import {
  firstIdOutside,
  migratedSchema,
  rowsInRange,
  schemaOf,
  schemaVersionOf,
  tableCursor,
} from '../../store/sqlite/team/snapshot-file.js';
import {
  intentProjection,
  projectionValues,
  type CollectionProjectionRow,
} from '../../store/sqlite/team/collection-projection.js';
import { pullPageRaw, type PullResult, type TeamEvent } from '../events.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';
import { SIGNED_SOURCES, teamEventVerifier, verdictAsStored, type EvidenceEvent, type Verdict } from '../evidence.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { eventValues } from '../sync/bulk-chunk.js';
import { SnapshotRejectedError } from './rejected.js';
import { ChainBrokenError, checkChain, START, type ChainHead } from '../chain.js';

/** The event columns, in the order the bulk copy inserts them (after the id). */
const EVENT_COLUMNS = [
  'id',
  'collection_id',
  'merchant_reference',
  'internal_reference',
  'source',
  'kind',
  'status',
  'received_at',
  'signature',
  'amount_minor',
  'currency',
  'dedupe_key',
  'payload',
  'note',
  'actor',
] as const;

const SIGNATURE_AT = EVENT_COLUMNS.indexOf('signature');
const NOTE_AT = EVENT_COLUMNS.indexOf('note');

/** A collection's columns as its intent writes them (insertIntentCollection). */
const INTENT_COLUMNS = [
  'id',
  'merchant_reference',
  'created_at',
  'amount_minor',
  'currency',
  'description',
  'customer_name',
  'customer_email',
  'charge_customer',
  'allow_final_status_change',
  'operator',
  'provider_code',
  'redirect_url',
  'card_brand',
  'card_last4',
] as const;

/** The projection columns the events maintain, in projectionValues' order. */
const PROJECTION = ['id', ...PROJECTION_COLUMNS] as const;

type Row = unknown[];

/** A snapshot is of one SQLite schema version: a desk takes only one of its own. */
export function snapshotSchemaVersion(): number {
  return migrations.reduce((m, x) => Math.max(m, x.version), 0);
}

/** A value for a message: bytes said as bytes, long text cut. */
function shown(v: unknown): string {
  if (Buffer.isBuffer(v)) return `${v.length} bytes (not text)`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

function differs(table: string, columns: readonly string[], want: Row, got: Row | undefined, what: string): never {
  if (!got) throw new SnapshotRejectedError(`it has no ${table} row ${String(want[0])} (${what})`);
  const col = columns.findIndex((_, k) => want[k] !== got[k]);
  throw new SnapshotRejectedError(
    `${table} row ${String(want[0])} (${what}): ${columns[col]} is ${shown(got[col])}, the record says ${shown(want[col])}`,
  );
}

function same(a: Row, b: Row | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

export interface VerifyOptions {
  pool: pg.Pool;
  /** The snapshot file, opened read-only by the caller. */
  snap: Db;
  uptoSeq: number;
  /** Events per PostgreSQL page (default and most 50,000). */
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
 * Resolves with the counts when every row of the snapshot is what the bulk copy makes of the events up
 * to `uptoSeq`; rejects with SnapshotRejectedError saying the first difference; null when stopped.
 */
export async function verifySnapshot(
  o: VerifyOptions,
): Promise<{ events: number; collections: number; signed: number; head: ChainHead; marks: ChainHead[] } | null> {
  const { snap } = o;
  const version = schemaVersionOf(snap);
  const want = snapshotSchemaVersion();
  if (version !== want) throw new SnapshotRejectedError(`its schema version is ${version}, this desk's ${want}`);
  if (schemaOf(snap) !== migratedSchema())
    throw new SnapshotRejectedError("its tables, indexes or triggers are not this desk's");

  const chunk = Math.min(o.chunk ?? 50_000, 50_000);
  const collections = tableCursor(snap, 'collections', INTENT_COLUMNS);
  const ids = new Map<string, number>();
  const folded: CollectionProjectionRow[] = [];
  const keys = o.keys;
  const checkNow = keys ? teamEventVerifier(keys) : undefined;
  // Deferred: a signed event's verdict is the one the snapshot stored (read from the row being compared),
  // or, when that is not one a check could give, this desk's own (which the row then fails to match).
  let storedRow: Row | undefined;
  let storedNote: string | null = null;
  let signed = 0;
  const verify =
    checkNow && o.deferSignatures
      ? (ev: EvidenceEvent): Verdict => {
          if (!SIGNED_SOURCES.has(ev.source)) return checkNow(ev);
          signed++;
          return verdictAsStored(storedNote, storedRow?.[SIGNATURE_AT], storedRow?.[NOTE_AT]) ?? checkNow(ev);
        }
      : checkNow;
  let eventId = 0;
  let collectionId = 0;

  const fetch = (from: number): Promise<PullResult> => {
    const p = pullPageRaw(o.pool, from, chunk, o.uptoSeq);
    p.catch(() => undefined); // awaited below
    return p;
  };
  let next = fetch(0);
  let head = START;
  const marks: ChainHead[] = [];
  for (;;) {
    const page = await next;
    if (page.more) next = fetch(page.lastSeq);
    const n = page.events.length;
    if (n) {
      try {
        head = checkChain(head, page.events, (m) => marks.push(m));
      } catch (e) {
        if (e instanceof ChainBrokenError)
          throw new SnapshotRejectedError(`the record's hash chain does not match at seq ${e.seq}: ${e.reason}`);
        throw e;
      }
      const rows = rowsInRange(snap, 'collection_events', EVENT_COLUMNS, eventId, eventId + n);
      for (let j = 0; j < n; j++) walk(page.events[j]!, rows[j]);
    }
    o.onProgress?.(page.lastSeq);
    if (!page.more) break;
    if (o.stopped?.()) return null;
  }

  /** One event: its collection (a new one from its intent), its stored kind, and the projection it makes. */
  function walk(tev: TeamEvent, stored: Row | undefined): void {
    const { merchantReference: ref, seq } = tev;
    let id = ids.get(ref);
    if (id === undefined) {
      const intent = intentFromTeamEvent(tev);
      if (intent) {
        id = ++collectionId;
        ids.set(ref, id);
        const row: Row = [id, ...intentValues(intent)];
        const got = collections.next();
        if (!same(row, got)) differs('collections', INTENT_COLUMNS, row, got, `the intent of seq ${seq}`);
        folded[id] = intentProjection(intent.createdAt, intent.amountMinor, intent.currency);
      }
    }
    storedRow = stored;
    storedNote = tev.note;
    const ev = fromTeamEvent(tev, verify);
    const p = id === undefined ? undefined : folded[id]!;
    const r = p ? projectEvent(p, ev) : undefined;
    const row: Row = [++eventId, ...eventValues(id ?? null, ev, r ? r.kind : ev.kind)];
    if (!same(row, stored)) differs('collection_events', EVENT_COLUMNS, row, stored, `seq ${seq}`);
    if (p && r) {
      Object.assign(p, r.next);
      p.last_event_id = eventId;
    }
  }

  // The walk compared ids 1..N of each table, one by one (a missing one shifts every row after it). The
  // copy takes every row, whatever its id: any row outside 1..N (0, negative, beyond) is one the record
  // does not make.
  const extraEvent = firstIdOutside(snap, 'collection_events', eventId);
  if (extraEvent !== undefined)
    throw new SnapshotRejectedError(`it has collection_events row ${extraEvent}, which no event of the record makes`);
  const extraCollection = firstIdOutside(snap, 'collections', collectionId);
  if (extraCollection !== undefined)
    throw new SnapshotRejectedError(`it has collections row ${extraCollection}, which no intent of the record makes`);
  const projections = tableCursor(snap, 'collections', PROJECTION);
  for (let id = 1; id <= collectionId; id++) {
    const p = folded[id]!;
    const row: Row = [id, ...projectionValues(p)];
    const got = projections.next();
    if (!same(row, got)) differs('collections', PROJECTION, row, got, 'its projection of the events');
  }
  return { events: eventId, collections: collectionId, signed, head, marks };
}
