// An event lost by the team record, as team.restore_events takes it back: the columns a writer sends, and
// what the one putting it back knows of where it was (a desk's rollback knows its seq, time and writer;
// serve's journal only the seq it was acknowledged under).
import type { RestoreRow } from '../store/pg/rollback.js';
import type { NewTeamEvent } from './events.js';

export interface LostPlace {
  seq: number | null;
  recordedAt: number | null;
  actor: string | null;
}

export function restoreRow(e: NewTeamEvent, lost: LostPlace): RestoreRow {
  return {
    event_key: e.eventKey,
    merchant_reference: e.merchantReference,
    internal_reference: e.internalReference ?? null,
    source: e.source,
    kind: e.kind,
    status: e.status ?? null,
    amount_minor: e.amountMinor === null || e.amountMinor === undefined ? null : String(e.amountMinor),
    currency: e.currency ?? null,
    signature: e.signature,
    payload: e.payload ?? null,
    note: e.note ?? null,
    payment_url: e.paymentUrl ?? null,
    status_message: e.statusMessage ?? null,
    occurred_at: new Date(e.occurredAt).toISOString(),
    evidence: e.evidence ?? null,
    lost_seq: lost.seq,
    lost_recorded_at: lost.recordedAt,
    lost_actor: lost.actor,
  };
}
