// Writing to the team's event log (events.ts reads it): each event checked, field by field, before one
// statement stores the batch, idempotent by event key. seq, actor and recorded_at come from the database
// (migration 1), never from here; the statements are store/pg/event-inserts.ts.
import { insertEvents, insertJudgedEvents, type EventInsertRow } from '../store/pg/event-inserts.js';
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

/** What the record made of one event given to appendJudgedEvents. */
export interface JudgedEvent {
  /** The key it was stored under now (its own, or said again: `<key>:<n>`); null when nothing was stored. */
  key: string | null;
  /** The seq it was stored at now; null when nothing was stored. */
  seq: number | null;
}

/**
 * appendEvents for the writers whose callbacks the database judges (team migration 18: serve's receiver,
 * which may not read event keys back, and a desk's import recorded team-first), in one statement: the keys
 * must be distinct (leave out a repeat). For each event, in the order given, the key and seq it was stored
 * under now, or nulls when nothing was stored: its key was stored already (earlier, by anyone), or it is a
 * callback whose body the record holds while the reference's latest callback status is its own (a repeat).
 * A callback whose body the record holds after another status is stored under `<key>:<n>` (said again).
 */
export async function appendJudgedEvents(db: Queryable, events: readonly NewTeamEvent[]): Promise<JudgedEvent[]> {
  if (!Array.isArray(events)) throw new TeamFieldError('events', 'must be a list');
  const rows = events.map((e, i) => checkEvent(e, `events[${i}]`));
  if (rows.length === 0) return [];
  let r: { keys: (string | null)[]; seqs: string[] };
  try {
    r = await insertJudgedEvents(db, rows);
  } catch (e) {
    throw translatePgError(e, 'append events', queryableLogin(db));
  }
  // Drawn one row at a time in the order given (ORDER BY n), under one write turn: ascending is that order.
  let next = 0;
  const out = r.keys.map((key) => ({ key, seq: key === null ? null : toSafeInteger(r.seqs[next++]!, 'seq') }));
  if (out.length !== rows.length || next !== r.seqs.length)
    throw new TeamError(`append events: ${rows.length} events sent, ${out.length} answered, ${r.seqs.length} stored`);
  return out;
}
