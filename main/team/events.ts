// The append-only event log every desktop pulls from: write (idempotent by event key) and read by
// server sequence. seq, actor and recorded_at come from the database (migration 1), never from here.
// This module checks what is written and shapes what is read; the statements are store/pg/events.ts.
import {
  insertEvents,
  insertUnstoredEvents,
  newestEventSeq,
  selectEventsAfter,
  selectEventHashes,
  selectEventsAfterRaw,
  selectEventsOfReference,
  type EventInsertRow,
  type EventRow,
  type RawEventRow,
} from '../store/pg/events.js';
import { EVENT_SOURCES, SIGNATURE_STATES, type EventSource, type SignatureState } from '../collections/model.js';
import { TeamError, TeamFieldError, translatePgError } from './errors.js';
import { queryableLogin, toSafeInteger, type Queryable } from './pool.js';

/** An event as a writer hands it over. Times are ms since the epoch; amounts integer minor units. */
export interface NewTeamEvent {
  /** The dedupe key: the same key written twice (by anyone) is stored once. */
  eventKey: string;
  merchantReference: string;
  internalReference?: string | null;
  source: EventSource;
  kind: string;
  status?: string | null;
  amountMinor?: number | null;
  currency?: string | null;
  signature: SignatureState;
  /** Raw text as received (a callback body): kept byte for byte, so not parsed here. */
  payload?: string | null;
  /** What a desk needs to check a signed event again (collections/evidence.ts, team/evidence.ts). */
  evidence?: string | null;
  note?: string | null;
  /** What the collection's row shows from this event besides its columns (an initialize answer's page). */
  paymentUrl?: string | null;
  /** The words shown next to the status (the service's status_message, a refusal's message). */
  statusMessage?: string | null;
  occurredAt: number;
}

/** An event as stored. */
export interface TeamEvent {
  seq: number;
  eventKey: string;
  merchantReference: string;
  internalReference: string | null;
  source: EventSource;
  kind: string;
  status: string | null;
  amountMinor: number | null;
  currency: string | null;
  signature: SignatureState;
  payload: string | null;
  /** As its writer kept it: each desk checks it itself (team/evidence.ts). */
  evidence: string | null;
  note: string | null;
  paymentUrl: string | null;
  statusMessage: string | null;
  occurredAt: number;
  recordedAt: number;
  /** The login that wrote it, as PostgreSQL saw it. */
  actor: string;
}

export interface TeamAppendResult {
  /** The events stored by this call, in the order given, with the sequence each got. */
  stored: { eventKey: string; seq: number }[];
  /** Keys already stored (earlier, by anyone, or twice in this batch): not stored again. */
  duplicates: string[];
}

function text(value: unknown, field: string, max: number, optional: boolean): string | null {
  if (value === undefined || value === null) {
    if (optional) return null;
    throw new TeamFieldError(field, 'is required');
  }
  if (typeof value !== 'string') throw new TeamFieldError(field, `must be text (got ${typeof value})`);
  if (!optional && value.length === 0) throw new TeamFieldError(field, 'must not be empty');
  if (value.length > max) throw new TeamFieldError(field, `must be at most ${max} characters (got ${value.length})`);
  return value;
}

function checkEvent(e: NewTeamEvent, at: string): EventInsertRow {
  if (typeof e !== 'object' || e === null) throw new TeamFieldError(at, 'must be an event object');
  if (!(EVENT_SOURCES as readonly string[]).includes(e.source)) {
    throw new TeamFieldError(
      `${at}.source`,
      `must be one of ${EVENT_SOURCES.join(', ')} (got ${JSON.stringify(e.source)})`,
    );
  }
  if (!(SIGNATURE_STATES as readonly string[]).includes(e.signature)) {
    throw new TeamFieldError(
      `${at}.signature`,
      `must be one of ${SIGNATURE_STATES.join(', ')} (got ${JSON.stringify(e.signature)})`,
    );
  }
  const amount = e.amountMinor ?? null;
  if (amount !== null && !Number.isSafeInteger(amount)) {
    throw new TeamFieldError(`${at}.amountMinor`, `must be an integer number of minor units (got ${String(amount)})`);
  }
  const currency = text(e.currency, `${at}.currency`, 100, true);
  if (currency !== null && !/^[A-Z]{3}$/.test(currency)) {
    throw new TeamFieldError(
      `${at}.currency`,
      `must be three capital letters, e.g. NGN (got ${JSON.stringify(currency)})`,
    );
  }
  if (!Number.isSafeInteger(e.occurredAt) || e.occurredAt < 0) {
    throw new TeamFieldError(`${at}.occurredAt`, `must be milliseconds since the epoch (got ${String(e.occurredAt)})`);
  }
  return {
    event_key: text(e.eventKey, `${at}.eventKey`, 300, false),
    merchant_reference: text(e.merchantReference, `${at}.merchantReference`, 200, false),
    internal_reference: text(e.internalReference, `${at}.internalReference`, 200, true),
    source: e.source,
    kind: text(e.kind, `${at}.kind`, 64, false),
    status: text(e.status, `${at}.status`, 64, true),
    amount_minor: amount === null ? null : String(amount),
    currency,
    signature: e.signature,
    payload: text(e.payload, `${at}.payload`, 1_000_000, true),
    evidence: text(e.evidence, `${at}.evidence`, 20_000, true),
    note: text(e.note, `${at}.note`, 10_000, true),
    payment_url: text(e.paymentUrl, `${at}.paymentUrl`, 2000, true),
    status_message: text(e.statusMessage, `${at}.statusMessage`, 2000, true),
    occurred_at: new Date(e.occurredAt).toISOString(),
  };
}

/**
 * Appends events in one statement (so in one transaction, or the caller's). Idempotent by event key:
 * a retry after a lost answer stores nothing twice. Keep batches to a few thousand events.
 */
export async function appendEvents(db: Queryable, events: readonly NewTeamEvent[]): Promise<TeamAppendResult> {
  if (!Array.isArray(events)) throw new TeamFieldError('events', 'must be a list');
  const rows = events.map((e, i) => checkEvent(e, `events[${i}]`));
  if (rows.length === 0) return { stored: [], duplicates: [] };
  let inserted: { seq: string; event_key: string }[];
  try {
    inserted = await insertEvents(db, rows);
  } catch (e) {
    throw translatePgError(e, 'append events', queryableLogin(db));
  }
  const seqOf = new Map(inserted.map((r) => [r.event_key, toSafeInteger(r.seq, 'seq')]));
  const stored: TeamAppendResult['stored'] = [];
  const duplicates: string[] = [];
  for (const e of events) {
    const seq = seqOf.get(e.eventKey);
    if (seq === undefined) duplicates.push(e.eventKey);
    else {
      stored.push({ eventKey: e.eventKey, seq });
      seqOf.delete(e.eventKey); // a key repeated within the batch was stored once
    }
  }
  return { stored, duplicates };
}

/**
 * appendEvents for a writer that may not read event keys back (serve's receiver, team migration 8), in one
 * statement: the keys must be distinct (leave out a repeat). For each event, in the order given, the seq
 * it was stored at now, or null when its key was stored already (earlier, by anyone). A key stored
 * meanwhile by another writer, after the statement's snapshot, fails the whole statement (a TeamError
 * with code 23505, nothing stored): ask again and retry.
 */
export async function appendUnstoredEvents(db: Queryable, events: readonly NewTeamEvent[]): Promise<(number | null)[]> {
  if (!Array.isArray(events)) throw new TeamFieldError('events', 'must be a list');
  const rows = events.map((e, i) => checkEvent(e, `events[${i}]`));
  if (rows.length === 0) return [];
  let r: { stored: boolean[]; seqs: string[] };
  try {
    r = await insertUnstoredEvents(
      db,
      rows,
      rows.map((row) => row.event_key!),
    );
  } catch (e) {
    throw translatePgError(e, 'append events', queryableLogin(db));
  }
  // Drawn one row at a time in the order given (ORDER BY n), under one write turn: ascending is that order.
  let next = 0;
  const seqs = r.stored.map((stored) => (stored ? null : toSafeInteger(r.seqs[next++]!, 'seq')));
  if (seqs.length !== rows.length || next !== r.seqs.length)
    throw new TeamError(`append events: ${rows.length} events sent, ${seqs.length} answered, ${r.seqs.length} stored`);
  return seqs;
}

function toEvent(r: EventRow): ChainedEvent {
  return {
    seq: toSafeInteger(r.seq, 'seq'),
    eventKey: r.event_key,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    source: r.source as EventSource,
    kind: r.kind,
    status: r.status,
    amountMinor: r.amount_minor === null ? null : toSafeInteger(r.amount_minor, 'amount_minor'),
    currency: r.currency,
    signature: r.signature as SignatureState,
    payload: r.payload,
    evidence: r.evidence,
    note: r.note,
    paymentUrl: r.payment_url,
    statusMessage: r.status_message,
    occurredAt: r.occurred_at.getTime(),
    recordedAt: r.recorded_at.getTime(),
    actor: r.actor,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** An event as pulled with its hash chain's columns (chain.ts checks them). */
export type ChainedEvent = TeamEvent & { prevHash: Buffer; hash: Buffer };

export interface PullResult {
  /** With their chain columns (team/chain.ts), for the puller to check. */
  events: ChainedEvent[];
  /** The seq to pull after next time: the last event's, or `afterSeq` when there was none. */
  lastSeq: number;
  /** True when more events wait beyond this batch. */
  more: boolean;
}

/**
 * The next batch of events after `afterSeq`, in seq order. Rows commit in seq order (migration 1),
 * so what is visible is always a prefix: a puller that keeps `lastSeq` never skips an event.
 */
export async function pullSince(db: Queryable, afterSeq: number, limit = 1000): Promise<PullResult> {
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0)
    throw new TeamFieldError('afterSeq', `must be a whole number >= 0 (got ${afterSeq})`);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 50_000)
    throw new TeamFieldError('limit', `must be 1 to 50000 (got ${limit})`);
  let rows: EventRow[];
  try {
    rows = await selectEventsAfter(db, afterSeq, limit + 1);
  } catch (e) {
    throw translatePgError(e, 'pull events', queryableLogin(db));
  }
  const more = rows.length > limit;
  const events = rows.slice(0, limit).map(toEvent);
  return { events, lastSeq: events.length ? events[events.length - 1]!.seq : afterSeq, more };
}

/** One merchant reference's events up to `uptoSeq` (what a desk folds again, sync/refold.ts), in seq order. */
export async function eventsOfReference(db: Queryable, reference: string, uptoSeq: number): Promise<ChainedEvent[]> {
  try {
    return (await selectEventsOfReference(db, reference, uptoSeq)).map(toEvent);
  } catch (e) {
    throw translatePgError(e, `read the events of ${reference}`, queryableLogin(db));
  }
}

/** The newest seq in the team record (up to `uptoSeq` when given), 0 when it has none; `doing` names the read. */
export async function newestSeq(db: Queryable, doing: string, uptoSeq?: number): Promise<number> {
  let max: string | null;
  try {
    max = await newestEventSeq(db, uptoSeq);
  } catch (e) {
    throw translatePgError(e, doing, queryableLogin(db));
  }
  return max ? toSafeInteger(max, 'seq') : 0;
}

/** bytea as PostgreSQL's text gives it ('\\x' and hex). */
function byteaText(s: string): Buffer {
  return Buffer.from(s.slice(2), 'hex');
}

/** The chain hash the record holds at each of `seqs` it has (seq to hash). */
export async function recordedHashes(db: Queryable, seqs: readonly number[]): Promise<Map<number, Buffer>> {
  let rows: [string, string][];
  try {
    rows = await selectEventHashes(db, seqs);
  } catch (e) {
    throw translatePgError(e, 'read the hash chain', queryableLogin(db));
  }
  return new Map(rows.map(([seq, hash]) => [toSafeInteger(seq, 'seq'), byteaText(hash)]));
}

/** An event read by selectEventsAfterRaw (or in its columns), as pulled: pullPageRaw's rows, and rollback.ts's. */
export function eventFromRaw(r: RawEventRow): ChainedEvent {
  return {
    seq: toSafeInteger(r[0], 'seq'),
    eventKey: r[1],
    merchantReference: r[2],
    internalReference: r[3],
    source: r[4] as EventSource,
    kind: r[5],
    status: r[6],
    amountMinor: r[7] === null ? null : toSafeInteger(r[7], 'amount_minor'),
    currency: r[8],
    signature: r[9] as SignatureState,
    payload: r[10],
    note: r[11],
    paymentUrl: r[12],
    statusMessage: r[13],
    occurredAt: toSafeInteger(r[14], 'occurred_at'),
    recordedAt: toSafeInteger(r[15], 'recorded_at'),
    actor: r[16],
    prevHash: byteaText(r[17]),
    hash: byteaText(r[18]),
    evidence: r[19] ?? null,
  };
}

/**
 * pullSince for a new desktop's bulk copy (sync/bulk.ts), where reading millions of rows is most of
 * the work: rows come as arrays of PostgreSQL's text (no row objects, no Date parsing) and times as
 * epoch milliseconds computed by the server, truncated as a Date of the same instant would be.
 */
export async function pullPageRaw(
  db: Queryable,
  afterSeq: number,
  limit: number,
  /** Stop at this seq (a snapshot covers the events up to one seq); none: to the newest. */
  uptoSeq: number = Number.MAX_SAFE_INTEGER,
): Promise<PullResult> {
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0)
    throw new TeamFieldError('afterSeq', `must be a whole number >= 0 (got ${afterSeq})`);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 50_000)
    throw new TeamFieldError('limit', `must be 1 to 50000 (got ${limit})`);
  if (!Number.isSafeInteger(uptoSeq) || uptoSeq < 0)
    throw new TeamFieldError('uptoSeq', `must be a whole number >= 0 (got ${uptoSeq})`);
  let rows: RawEventRow[];
  try {
    rows = await selectEventsAfterRaw(db, afterSeq, limit + 1, uptoSeq);
  } catch (e) {
    throw translatePgError(e, 'pull events', queryableLogin(db));
  }
  const n = Math.min(rows.length, limit);
  const events: ChainedEvent[] = new Array<ChainedEvent>(n);
  for (let i = 0; i < n; i++) events[i] = eventFromRaw(rows[i]!);
  return { events, lastSeq: n ? events[n - 1]!.seq : afterSeq, more: rows.length > limit };
}
