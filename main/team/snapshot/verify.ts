// Checks a downloaded snapshot before a desk uses any of it: that its events are the record's (chain.ts:
// each event put back together from the file and hashed onto the one before, the last hash the one
// team.events holds at the snapshot's seq; run beside this on a thread of its own), and here, that every
// row the desk takes is what the replay makes of those events.
//
// A snapshot is what the bulk copy (sync/bulk.ts) writes into an EMPTY SQLite file from the events up
// to one seq, and that copy is deterministic: it gives ids in seq order (collections as their intents
// arrive, events one each, PostgreSQL's event keys being unique), maps each event with fromTeamEvent,
// creates a collection from its intent with intentFromTeamEvent, and folds the projection with
// projectEvent. So the snapshot's rows are walked in id order, each event put back together from its
// collection_events row and its snapshot_chain row (chain.ts teamEventOf), the same functions applied in
// memory, and every column of every event row and every collection row compared, types included. A
// single value that differs (an actor, a status, a flag, an extra or missing row) rejects the snapshot,
// naming the row and column. Until the chain check has passed, the events walked here are the file's
// word: a difference found here is reported as the record's when the record's own row at that seq no
// longer hashes as it was recorded (chain.ts recordRowBroken), as the old check, which read every
// event from PostgreSQL, reported it.
//
// The reconciliation is not in the snapshot's trust at all: the desk that takes it computes it.
// Every row of the two tables the copy takes is compared, whatever its id (a row outside 1..N is
// refused). The indexes the copy brings along are not compared here: they are proven against the rows
// in the file, or rebuilt by the copy (start.ts, store/sqlite/team/snapshot-copy.ts).
import type pg from 'pg';
import { PROJECTION_COLUMNS, projectEvent } from '../../collections/event-rules.js';
import { intentValues } from '../../collections/intent-row.js';
import type { Db } from '../../store/sqlite/connection.js';
import { firstIdOutside, rowsInRange, tableJsonCursor } from '../../store/sqlite/team/snapshot-file.js';
import { checkSnapshotSchema } from './file-schema.js';
import { CHAIN_COLUMNS, derivationPage, payloadAndEvidence } from '../../store/sqlite/team/snapshot-chain.js';
import {
  intentProjection,
  projectionValues,
  type CollectionProjectionRow,
} from '../../store/sqlite/team/collection-projection.js';
import type { TeamEvent } from '../events.js';
import { fromTeamEvent, intentFromTeamEvent, TEAM_INTENT_KIND } from '../record.js';
import type { EventSource, SignatureState } from '../../collections/model.js';
import { SIGNED_SOURCES, teamEventVerifier, verdictAsStored, type EvidenceEvent, type Verdict } from '../evidence.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { eventValues } from '../sync/bulk-chunk.js';
import { SnapshotRejectedError } from './rejected.js';
import { EVENT_COLUMNS, recordRowBroken, shown, teamEventOf } from './chain.js';

/** A payload the event row keeps, not read (the chain binds it to the event's). */
const KEPT = Symbol('kept');

/** The columns of a derivationPage row (store/sqlite/team/snapshot-chain.ts), by position. */
const F = {
  id: 0,
  collectionId: 1,
  ref: 2,
  internal: 3,
  source: 4,
  kind: 5,
  status: 6,
  receivedAt: 7,
  signature: 8,
  amount: 9,
  currency: 10,
  note: 11,
  actor: 12,
  seq: 13,
  teamKind: 14,
  teamSignature: 15,
  teamNote: 16,
  paymentUrl: 17,
  statusMessage: 18,
  occurredAt: 19,
  keptPayload: 20,
  rowPayloadNull: 21,
} as const;

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

/** The intent columns a JS number reads from (JSON tells them from text, not from a real: tableJsonCursor). */
const INTENT_INTEGERS = new Set(['id', 'created_at', 'amount_minor', 'charge_customer', 'allow_final_status_change']);

/** The projection columns the events maintain, in projectionValues' order. */
const PROJECTION = ['id', ...PROJECTION_COLUMNS] as const;
const PROJECTION_INTEGERS = new Set(['id', 'status_changed_at', 'last_event_id', 'flags', 'final_changes']);

type Row = unknown[];

export { snapshotSchemaVersion } from './file-schema.js';

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
  /** The events the file holds, by its publisher's word (ids 1..events; the chain check holds it to them). */
  events: number;
  /** Events read from the file at a time (default and most 50,000). */
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

  const chunk = Math.min(o.chunk ?? 50_000, 50_000);
  const collections = tableJsonCursor(snap, 'collections', INTENT_COLUMNS, INTENT_INTEGERS);
  const ids = new Map<string, number>();
  const folded: CollectionProjectionRow[] = [];
  const keys = o.keys;
  const checkNow = keys ? teamEventVerifier(keys) : undefined;
  // Deferred: a signed event's verdict is the one the snapshot stored (read from the row being compared),
  // or, when that is not one a check could give, this desk's own (which the row then fails to match).
  let storedSignature: unknown;
  let storedNote: unknown;
  let writerNote: string | null = null;
  let signed = 0;
  const verify =
    checkNow && o.deferSignatures
      ? (ev: EvidenceEvent): Verdict => {
          if (!SIGNED_SOURCES.has(ev.source)) return checkNow(ev);
          signed++;
          return verdictAsStored(writerNote, storedSignature, storedNote) ?? checkNow(ev);
        }
      : checkNow;
  let eventId = 0;
  let collectionId = 0;

  while (eventId < events) {
    const n = Math.min(chunk, events - eventId);
    const from = eventId;
    let seq = 0;
    try {
      const page = derivationRows(from, n);
      if (page) {
        for (const r of page) {
          seq = r[F.seq] as number;
          derive(r);
        }
      } else {
        // A column SQLite will not write as JSON (a BLOB): the page read value by value, each row compared whole.
        const rows = rowsInRange(snap, 'collection_events', EVENT_COLUMNS, from, from + n);
        const kept = rowsInRange(snap, 'snapshot_chain', CHAIN_COLUMNS, from, from + n);
        for (let j = 0; j < n; j++) {
          const id = from + j + 1;
          const s = kept[j];
          if (!s || s[0] !== id) throw new SnapshotRejectedError(`it has no snapshot_chain row ${id}`);
          seq = s[1] as number;
          const tev = teamEventOf(rows[j] ?? [], s);
          if (!tev)
            throw new SnapshotRejectedError(
              `collection_events row ${id} (seq ${seq}): its payload is also in its snapshot_chain row`,
            );
          walk(tev, rows[j]);
        }
      }
    } catch (e) {
      // Not the file's doing when the record's own row there no longer hashes as it was recorded.
      const broken = e instanceof SnapshotRejectedError && seq > 0 ? await recordRowBroken(o.pool, seq) : null;
      if (broken) throw new SnapshotRejectedError(broken);
      throw e;
    }
    o.onProgress?.(seq);
    if (o.stopped?.()) return null;
    // Lets the worker's messages (stop, progress) through between pages.
    await new Promise<void>((r) => setImmediate(r));
  }

  /** A page of derivationPage rows in id order, or undefined when SQLite could not write it. */
  function derivationRows(from: number, n: number): unknown[][] | undefined {
    let page: unknown[][];
    try {
      page = JSON.parse(derivationPage(snap, from, from + n)) as unknown[][];
    } catch {
      return undefined;
    }
    if (page.length !== n)
      throw new SnapshotRejectedError(`it has no collection_events row for some of ids ${from + 1} to ${from + n}`);
    for (let j = 0; j < n; j++)
      if (page[j]![F.id] !== from + j + 1) return page.sort((a, b) => (a[0] as number) - (b[0] as number));
    return page;
  }

  /**
   * One event from its derivation columns: the team event as far as the rows derived from it read it (the
   * chain check binds every value, chain.ts), its collection, its stored kind, signature, note, time and
   * payload, and the projection it makes. The columns the event row keeps as the team event has them
   * are bound by the chain and not read here (dedupe_key; payload but where the row keeps none).
   */
  function derive(r: readonly unknown[]): void {
    const id = r[F.id] as number;
    const source = r[F.source] as EventSource;
    const teamKind = r[F.teamKind] as string;
    const keptPayload = r[F.keptPayload] as string | null;
    const rowPayloadNull = r[F.rowPayloadNull] === 1;
    if (keptPayload !== null && !rowPayloadNull)
      throw new SnapshotRejectedError(
        `collection_events row ${id} (seq ${r[F.seq]}): its payload is also in its snapshot_chain row`,
      );
    const tev: TeamEvent = {
      seq: r[F.seq] as number,
      eventKey: '',
      merchantReference: r[F.ref] as string,
      internalReference: r[F.internal] as string | null,
      source,
      kind: teamKind,
      status: r[F.status] as string | null,
      amountMinor: r[F.amount] as number | null,
      currency: r[F.currency] as string | null,
      signature: r[F.teamSignature] as SignatureState,
      payload: keptPayload,
      note: r[F.teamNote] as string | null,
      paymentUrl: r[F.paymentUrl] as string | null,
      statusMessage: r[F.statusMessage] as string | null,
      occurredAt: (r[F.occurredAt] ?? r[F.receivedAt]) as number,
      recordedAt: 0,
      actor: r[F.actor] as string,
      evidence: null,
    };
    storedSignature = r[F.signature];
    storedNote = r[F.note];
    writerNote = tev.note;
    // The payload and evidence the row keeps, read only where the derivation reads them: an intent that
    // may become a collection, and a signature this desk checks itself here.
    const intentLike = source === 'intent' && teamKind === TEAM_INTENT_KIND;
    const checked =
      checkNow !== undefined &&
      SIGNED_SOURCES.has(source) &&
      (!o.deferSignatures || verdictAsStored(tev.note, storedSignature, storedNote) === null);
    /** The row's payload: null, or what it keeps (read only when the derivation reads it). */
    let rowPayload: unknown = rowPayloadNull ? null : KEPT;
    if ((intentLike && keptPayload === null && !rowPayloadNull) || checked) {
      const [payload, evidence] = payloadAndEvidence(snap, id) ?? [null, null];
      if (keptPayload === null) tev.payload = payload as string | null;
      tev.evidence = evidence as string | null;
      rowPayload = payload;
    }
    const ref = tev.merchantReference;
    let cid = ids.get(ref);
    if (cid === undefined) {
      const intent = intentFromTeamEvent(tev);
      if (intent) {
        cid = ++collectionId;
        ids.set(ref, cid);
        const row: Row = [cid, ...intentValues(intent)];
        const got = collections.next();
        if (!same(row, got)) differs('collections', INTENT_COLUMNS, row, got, `the intent of seq ${tev.seq}`);
        folded[cid] = intentProjection(intent.createdAt, intent.amountMinor, intent.currency);
      }
    }
    const ev = fromTeamEvent(tev, verify);
    const p = cid === undefined ? undefined : folded[cid]!;
    const pr = p ? projectEvent(p, ev) : undefined;
    ++eventId;

    // Column by column, in the row's order, the first that differs named (no array per event: a year is
    // millions of them).
    const payloadWant = intentLike ? (ev.payload ?? null) : keptPayload === null ? rowPayload : keptPayload;
    if (id !== eventId) mismatch('id', id, eventId);
    if (r[F.collectionId] !== (cid ?? null)) mismatch('collection_id', r[F.collectionId], cid ?? null);
    if (r[F.ref] !== ev.merchantReference) mismatch('merchant_reference', r[F.ref], ev.merchantReference);
    if (r[F.internal] !== (ev.internalReference ?? null))
      mismatch('internal_reference', r[F.internal], ev.internalReference ?? null);
    if (r[F.source] !== ev.source) mismatch('source', r[F.source], ev.source);
    const kind = pr ? pr.kind : ev.kind;
    if (r[F.kind] !== kind) mismatch('kind', r[F.kind], kind);
    if (r[F.status] !== (ev.status ?? null)) mismatch('status', r[F.status], ev.status ?? null);
    if (r[F.receivedAt] !== ev.receivedAt) mismatch('received_at', r[F.receivedAt], ev.receivedAt);
    if (r[F.signature] !== ev.signature) mismatch('signature', r[F.signature], ev.signature);
    if (r[F.amount] !== (ev.amountMinor ?? null)) mismatch('amount_minor', r[F.amount], ev.amountMinor ?? null);
    if (r[F.currency] !== (ev.currency ?? null)) mismatch('currency', r[F.currency], ev.currency ?? null);
    // The row keeps the team payload, but an intent's, which became its collection: what it keeps is the
    // event's (the chain binds it) unless the event's is kept beside it instead.
    if (rowPayload !== payloadWant) mismatch('payload', rowPayload, payloadWant);
    if (r[F.note] !== (ev.note ?? null)) mismatch('note', r[F.note], ev.note ?? null);

    function mismatch(col: string, got: unknown, want: unknown): never {
      throw new SnapshotRejectedError(
        `collection_events row ${id} (seq ${tev.seq}): ${col} is ${shown(got)}, the record says ${shown(want)}`,
      );
    }
    if (p && pr) {
      Object.assign(p, pr.next);
      p.last_event_id = eventId;
    }
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
    storedSignature = stored?.[SIGNATURE_AT];
    storedNote = stored?.[NOTE_AT];
    writerNote = tev.note;
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
  const projections = tableJsonCursor(snap, 'collections', PROJECTION, PROJECTION_INTEGERS);
  for (let id = 1; id <= collectionId; id++) {
    const p = folded[id]!;
    const row: Row = [id, ...projectionValues(p)];
    const got = projections.next();
    if (!same(row, got)) differs('collections', PROJECTION, row, got, 'its projection of the events');
  }
  return { events: eventId, collections: collectionId, signed };
}
