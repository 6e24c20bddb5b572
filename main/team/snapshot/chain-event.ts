// A team event as a snapshot keeps it: its collection_events row (the columns a desk's row has) and its
// snapshot_chain row beside it (what the row leaves out, store/sqlite/team/snapshot-chain.ts). The
// publisher writes the second from the event (chainRowOf); a desk puts the event back together from the
// two (teamEventOf) as SQLite's canonicalContents does, to hash it onto the one before (chain.ts).
import { CHAIN_COLUMNS, type ChainRow } from '../../store/sqlite/team/snapshot-chain.js';
import type { EventSource, SignatureState } from '../../collections/model.js';
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
export const E = Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, i])) as Record<
  (typeof EVENT_COLUMNS)[number],
  number
>;
export const S = Object.fromEntries(CHAIN_COLUMNS.map((c, i) => [c, i])) as Record<
  (typeof CHAIN_COLUMNS)[number],
  number
>;

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

/**
 * The team event a snapshot's collection_events row and snapshot_chain row say, put together as
 * SQLite's canonicalContents does (store/sqlite/team/snapshot-chain.ts): the same column for each field.
 * Where the two would disagree (a payload in both rows) it is undefined: such a file's content never
 * hashes as the record's. The values are taken as they are: once the chain has matched, each has the type
 * the team column has (canonicalContents writes any other as a value no record holds).
 */
export function teamEventOf(d: readonly unknown[], s: readonly unknown[]): TeamEvent | undefined {
  const rowPayload = d[E.payload] as string | null;
  const keptPayload = s[S.payload] as string | null;
  if (rowPayload !== null && keptPayload !== null) return undefined;
  return {
    seq: s[S.seq] as number,
    eventKey: d[E.dedupe_key] as string,
    merchantReference: d[E.merchant_reference] as string,
    internalReference: d[E.internal_reference] as string | null,
    source: d[E.source] as EventSource,
    kind: s[S.kind] as string,
    status: d[E.status] as string | null,
    amountMinor: d[E.amount_minor] as number | null,
    currency: d[E.currency] as string | null,
    signature: s[S.signature] as SignatureState,
    payload: keptPayload ?? rowPayload,
    note: s[S.note] as string | null,
    paymentUrl: s[S.payment_url] as string | null,
    statusMessage: s[S.status_message] as string | null,
    occurredAt: (s[S.occurred_at] ?? d[E.received_at]) as number,
    recordedAt: s[S.recorded_at] as number,
    actor: d[E.actor] as string,
    evidence: s[S.evidence] as string | null,
  };
}
