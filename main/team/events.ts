// The append-only event log every desktop pulls from: write (idempotent by event key) and read by
// server sequence. seq, actor and recorded_at come from the database (migration 1), never from here.
// This module shapes what is read; the statements are store/pg/events.ts. Writing (appendEvents,
// appendJudgedEvents, and the event a writer hands over, checked) is event-append.ts, exported from here
// too, where every writer imports it.
import {
  newestEventSeq,
  selectEventsAfter,
  selectEventHashes,
  selectEventsAfterRaw,
  selectEventsOfReference,
  type EventRow,
  type RawEventRow,
} from '../store/pg/events.js';
import type { EventSource, SignatureState } from '../collections/model.js';
import { TeamFieldError, translatePgError } from './errors.js';
import { queryableLogin, toSafeInteger, type Queryable } from './pool.js';

export {
  appendEvents,
  appendJudgedEvents,
  type JudgedEvent,
  type NewTeamEvent,
  type TeamAppendResult,
} from './event-append.js';

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
