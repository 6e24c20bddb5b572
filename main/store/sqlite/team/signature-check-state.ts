// The re-check a new desk owes of the signatures it took from a snapshot (team_signature_check,
// migration 18): at most one row, written by the snapshot copy's transaction, advanced page by page
// with each page's corrections, removed once the check and the reconciliation after it are done.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, maybe, rowMapper } from '../../columns.js';

export interface SignatureCheckRow {
  /** The snapshot's events are ids 1..upto_event_id, the record's up to upto_seq. */
  upto_event_id: number;
  upto_seq: number;
  signed_total: number;
  /** Re-checked so far: events up to this id (this seq of the record). */
  checked_event_id: number;
  checked_seq: number;
  checked_signed: number;
  failed: number;
}

const signatureCheckRowOf = rowMapper<SignatureCheckRow>((r) => ({
  upto_event_id: int(r, 'upto_event_id'),
  upto_seq: int(r, 'upto_seq'),
  signed_total: int(r, 'signed_total'),
  checked_event_id: int(r, 'checked_event_id'),
  checked_seq: int(r, 'checked_seq'),
  checked_signed: int(r, 'checked_signed'),
  failed: int(r, 'failed'),
}));

/** The re-check this desk owes, or undefined when there is none. */
export function signatureCheckRow(db: ReadDb): SignatureCheckRow | undefined {
  const r = readStatement(
    db,
    `SELECT upto_event_id, upto_seq, signed_total, checked_event_id, checked_seq, checked_signed, failed
       FROM team_signature_check WHERE one_row = 1`,
  ).get();
  return maybe(r, signatureCheckRowOf);
}

/** Records, inside the snapshot copy's transaction, that its `signedTotal` signed events are to be re-checked. */
export function owesSignatureCheck(
  db: WriteDb,
  o: { uptoEventId: number; uptoSeq: number; signedTotal: number; startedAt: number },
): void {
  statement(
    db,
    `INSERT INTO team_signature_check (one_row, upto_event_id, upto_seq, signed_total, started_at)
         VALUES (1, ?, ?, ?, ?)`,
  ).run(o.uptoEventId, o.uptoSeq, o.signedTotal, o.startedAt);
}

/** A page re-checked: up to `eventId` (`seq`), with how many signed events it held and how many failed. */
export function advanceSignatureCheck(db: WriteDb, eventId: number, seq: number, signed: number, failed: number): void {
  statement(
    db,
    `UPDATE team_signature_check SET checked_event_id = ?, checked_seq = ?, checked_signed = checked_signed + ?,
       failed = failed + ? WHERE one_row = 1`,
  ).run(eventId, seq, signed, failed);
}

/** The re-check is done (and the desk reconciled): nothing is owed any more. */
export function endSignatureCheck(db: WriteDb): void {
  statement(db, 'DELETE FROM team_signature_check').run();
}
