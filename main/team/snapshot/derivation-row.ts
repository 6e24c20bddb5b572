// A row of derivationPage (store/sqlite/team/snapshot-chain.ts): the columns of one event of a snapshot
// that the row check's replay reads (row-replay.ts), the event row's and its snapshot_chain row's, as one
// JSON array per event. Here are their positions, a page of them read in id order, and the team event
// they say as far as the replay reads it.
import type { Db } from '../../store/sqlite/connection.js';
import { derivationPage } from '../../store/sqlite/team/snapshot-chain.js';
import type { TeamEvent } from '../events.js';
import type { EventSource, SignatureState } from '../../collections/model.js';
import { SnapshotRejectedError } from './rejected.js';

/** The columns of a derivationPage row (store/sqlite/team/snapshot-chain.ts), by position. */
export const F = {
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

/** A page of derivationPage rows in id order, or undefined when SQLite could not write it. */
export function derivationRows(snap: Db, from: number, n: number): unknown[][] | undefined {
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
 * The team event as far as the rows derived from it read it (the chain check binds every value,
 * chain.ts): its payload only when the chain row keeps it, no evidence yet (read on demand).
 */
export function derivedTeamEvent(r: readonly unknown[], keptPayload: string | null): TeamEvent {
  return {
    seq: r[F.seq] as number,
    eventKey: '',
    merchantReference: r[F.ref] as string,
    internalReference: r[F.internal] as string | null,
    source: r[F.source] as EventSource,
    kind: r[F.teamKind] as string,
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
}
