// A row of derivationPage (store/sqlite/team/snapshot-chain.ts): the columns of one event of a snapshot
// that the row check's replay reads (row-replay.ts), the event row's and its snapshot_chain row's, as one
// JSON array per event. Here a page of them is read in id order, each row decoded by column name into a
// DerivationRow (every value's type checked: a file is a forger's word until it is checked, and a value
// of another type is refused naming its table and column), and the team event they say as far as the
// replay reads it.
import type { Db } from '../../store/sqlite/connection.js';
import {
  asValues,
  intValue,
  positionsOf,
  textOrNullValue,
  textValue,
  typedIntOrNullValue,
  typedIntValue,
} from '../../store/columns.js';
import { DERIVATION_COLUMNS, derivationPage } from '../../store/sqlite/team/snapshot-chain.js';
import type { TeamEvent } from '../events.js';
import { chainColumns, eventColumns, type ChainColumns, type EventColumns } from './chain-event.js';
import { refusedRow, SnapshotRejectedError } from './rejected.js';

/** Where each DERIVATION_COLUMNS name is in a row. */
const F = positionsOf(DERIVATION_COLUMNS);
/** Where each snapshot_chain column is in a row, by its name in that table. */
const CHAIN_AT = {
  seq: F.chain_seq,
  kind: F.chain_kind,
  signature: F.chain_signature,
  note: F.chain_note,
  payment_url: F.chain_payment_url,
  status_message: F.chain_status_message,
  occurred_at: F.chain_occurred_at,
  payload: F.chain_payload,
};

/**
 * One event's derivation columns: its collection_events row's (those the team event keeps as they are in
 * `event`), then its snapshot_chain row's (team*), each by name.
 */
export interface DerivationRow {
  id: number;
  collectionId: number | null;
  event: EventColumns;
  kind: string;
  receivedAt: number;
  signature: string;
  note: string | null;
  /** Its snapshot_chain row's columns. */
  chain: ChainColumns;
  /** Whether the event row's payload is NULL. */
  rowPayloadNull: boolean;
}

/** A page of derivationPage rows in id order, or undefined when SQLite could not write it. */
export function derivationRows(snap: Db, from: number, n: number): readonly unknown[] | undefined {
  let page: unknown;
  try {
    page = JSON.parse(derivationPage(snap, from, from + n));
  } catch {
    return undefined;
  }
  const rows = asValues(page, 'derivation page');
  if (rows.length !== n)
    throw new SnapshotRejectedError(`it has no collection_events row for some of ids ${from + 1} to ${from + n}`);
  for (let j = 0; j < n; j++) if (idOf(rows[j]) !== from + j + 1) return [...rows].sort((a, b) => idOf(a) - idOf(b));
  return rows;
}

function idOf(r: unknown): number {
  return intValue(asValues(r)[F.id], 'id');
}

/**
 * A derivationPage row by column name, each value's type checked; refuses the snapshot naming the table
 * and the column of a value that is not what the row type says.
 */
export function derivationRow(raw: unknown): DerivationRow {
  const r = asValues(raw, 'derivation row');
  let table = 'collection_events';
  try {
    // The event row's values first (a wrong one is collection_events'), then the chain row's.
    const id = intValue(r[F.id], 'id');
    const collectionId = typedIntOrNullValue(r[F.collection_id], 'collection_id');
    const event = eventColumns(r, F);
    const kind = textValue(r[F.kind], 'kind');
    const receivedAt = typedIntValue(r[F.received_at], 'received_at');
    const signature = textValue(r[F.signature], 'signature');
    const note = textOrNullValue(r[F.note], 'note');
    table = 'snapshot_chain';
    return {
      id,
      collectionId,
      event,
      kind,
      receivedAt,
      signature,
      note,
      chain: chainColumns(r, CHAIN_AT),
      rowPayloadNull: r[F.payload_is_null] === 1,
    };
  } catch (e) {
    return refusedRow(e, table, r[F.id]);
  }
}

/**
 * An event row's payload and its snapshot_chain row's evidence (payloadAndEvidence; none: no such row),
 * each text or NULL; refuses the snapshot naming the one that is not.
 */
export function keptTexts(id: number, kept: readonly [unknown, unknown] | undefined): [string | null, string | null] {
  if (!kept) return [null, null];
  const [payload, evidence] = kept;
  return [
    rowValue('collection_events', id, () => textOrNullValue(payload, 'payload')),
    rowValue('snapshot_chain', id, () => textOrNullValue(evidence, 'evidence')),
  ];
}

/** `read` (a column reader), its StoreError said as the snapshot's refusal, with the table and row. */
function rowValue<T>(table: string, id: number, read: () => T): T {
  try {
    return read();
  } catch (e) {
    return refusedRow(e, table, id);
  }
}

/**
 * The team event as far as the rows derived from it read it (the chain check binds every value,
 * chain.ts): its payload only when the chain row keeps it, no evidence yet (read on demand).
 */
export function derivedTeamEvent(r: DerivationRow): TeamEvent {
  // Every field written out, in TeamEvent's order: a spread of the two parts made each event a dictionary
  // object (a start's CPU went from 5.5 to 9.4 s on a 20,000-collection file, snapshot-ab).
  const { event: e, chain: c } = r;
  return {
    seq: c.seq,
    eventKey: '',
    merchantReference: e.merchantReference,
    internalReference: e.internalReference,
    source: e.source,
    kind: c.kind,
    status: e.status,
    amountMinor: e.amountMinor,
    currency: e.currency,
    signature: c.signature,
    payload: c.payload,
    evidence: null,
    note: c.note,
    paymentUrl: c.paymentUrl,
    statusMessage: c.statusMessage,
    occurredAt: c.occurredAt ?? r.receivedAt,
    recordedAt: 0,
    actor: e.actor,
  };
}
