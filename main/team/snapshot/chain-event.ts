// A team event as a snapshot keeps it: its collection_events row (the columns a desk's row has) and its
// snapshot_chain row beside it (what the row leaves out, store/sqlite/team/snapshot-chain.ts). The
// publisher writes the second from the event (chainRowOf); a desk puts the event back together from the
// two (teamEventOf) as SQLite's canonicalContents does, to hash it onto the one before (chain.ts).
import { CHAIN_COLUMNS, type ChainRow } from '../../store/sqlite/team/snapshot-chain.js';
import { EVENT_SOURCES, SIGNATURE_STATES, type SignatureState } from '../../collections/model.js';
import { intOrNullValue, intValue, oneOfValue, positionsOf, textOrNullValue, textValue } from '../../store/columns.js';
import { refusedRow } from './rejected.js';
import type { ChainedEvent, TeamEvent } from '../events.js';
import { fromTeamEvent } from '../record.js';
import { MARK_EVERY } from '../chain.js';

/** The collection_events columns a team event is put back together from, in this order. */
export const EVENT_COLUMNS = [
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
/** Where each column is in a row read by EVENT_COLUMNS (collection_events) and CHAIN_COLUMNS (snapshot_chain). */
export const E = positionsOf(EVENT_COLUMNS);
export const S = positionsOf(CHAIN_COLUMNS);

/** Whether an event starts a new block of MARK_EVERY seqs after `prevSeq` (team/chain.ts checkChain's rule). */
export function startsBlock(prevSeq: number, seq: number): boolean {
  return Math.floor(seq / MARK_EVERY) !== Math.floor(prevSeq / MARK_EVERY);
}

/**
 * What the publisher keeps of an event beside its collection_events row `id` (stored from it by the
 * bulk copy): see ChainRow. `mark`: its hash when it starts a block.
 */
export function chainRowOf(e: ChainedEvent, id: number, isMark: boolean): ChainRow {
  // The row keeps these two as fromTeamEvent gives them (it does not depend on the signature's verdict).
  const row = fromTeamEvent(e);
  return {
    id,
    seq: e.seq,
    kind: e.kind,
    signature: e.signature,
    note: e.note,
    paymentUrl: e.paymentUrl,
    statusMessage: e.statusMessage,
    occurredAt: e.occurredAt === row.receivedAt ? null : e.occurredAt,
    recordedAt: e.recordedAt,
    evidence: e.evidence,
    payload: row.payload === null ? e.payload : null,
    mark: isMark ? e.hash : null,
  };
}

/** The collection_events columns a team event keeps as they are (the chain binds them). */
export type EventColumns = Pick<
  TeamEvent,
  'merchantReference' | 'internalReference' | 'source' | 'status' | 'amountMinor' | 'currency' | 'actor'
>;
type EventPositions = Readonly<
  Record<
    'merchant_reference' | 'internal_reference' | 'source' | 'status' | 'amount_minor' | 'currency' | 'actor',
    number
  >
>;

/**
 * The EventColumns of a collection_events row read as values, each by its column's name (`at`: where
 * each is), its type checked; throws a StoreError naming the column of one that is not the event's.
 */
export function eventColumns(r: readonly unknown[], at: EventPositions): EventColumns {
  return {
    merchantReference: textValue(r[at.merchant_reference], 'merchant_reference'),
    internalReference: textOrNullValue(r[at.internal_reference], 'internal_reference'),
    source: oneOfValue(r[at.source], 'source', EVENT_SOURCES),
    status: textOrNullValue(r[at.status], 'status'),
    amountMinor: intOrNullValue(r[at.amount_minor], 'amount_minor'),
    currency: textOrNullValue(r[at.currency], 'currency'),
    actor: textValue(r[at.actor], 'actor'),
  };
}

/** The snapshot_chain columns the row check reads too (derivation-row.ts). */
export type ChainColumns = Pick<
  ChainRow,
  'seq' | 'kind' | 'note' | 'paymentUrl' | 'statusMessage' | 'occurredAt' | 'payload'
> & {
  signature: SignatureState;
};
type ChainPositions = Readonly<
  Record<'seq' | 'kind' | 'signature' | 'note' | 'payment_url' | 'status_message' | 'occurred_at' | 'payload', number>
>;

/** The ChainColumns of a snapshot_chain row read as values, as eventColumns reads an event row's. */
export function chainColumns(r: readonly unknown[], at: ChainPositions): ChainColumns {
  return {
    seq: intValue(r[at.seq], 'seq'),
    kind: textValue(r[at.kind], 'kind'),
    signature: oneOfValue(r[at.signature], 'signature', SIGNATURE_STATES),
    note: textOrNullValue(r[at.note], 'note'),
    paymentUrl: textOrNullValue(r[at.payment_url], 'payment_url'),
    statusMessage: textOrNullValue(r[at.status_message], 'status_message'),
    occurredAt: intOrNullValue(r[at.occurred_at], 'occurred_at'),
    payload: textOrNullValue(r[at.payload], 'payload'),
  };
}

/**
 * The team event a snapshot's collection_events row and snapshot_chain row say, put together as
 * SQLite's canonicalContents does (store/sqlite/team/snapshot-chain.ts): the same column for each field,
 * read by name. Where the two would disagree (a payload in both rows) it is undefined: such a file's
 * content never hashes as the record's. A value of another type than the team column's (which
 * canonicalContents writes as a value no record holds) refuses the snapshot, naming its table and column.
 */
export function teamEventOf(d: readonly unknown[], s: readonly unknown[]): TeamEvent | undefined {
  let table = 'collection_events';
  try {
    const rowPayload = textOrNullValue(d[E.payload], 'payload');
    const eventKey = textValue(d[E.dedupe_key], 'dedupe_key');
    const event = eventColumns(d, E);
    const receivedAt = intValue(d[E.received_at], 'received_at');
    table = 'snapshot_chain';
    const kept = chainColumns(s, S);
    if (rowPayload !== null && kept.payload !== null) return undefined;
    return {
      ...event,
      ...kept,
      eventKey,
      payload: kept.payload ?? rowPayload,
      occurredAt: kept.occurredAt ?? receivedAt,
      recordedAt: intValue(s[S.recorded_at], 'recorded_at'),
      evidence: textOrNullValue(s[S.evidence], 'evidence'),
    };
  } catch (e) {
    return refusedRow(e, table, s[S.id]);
  }
}
