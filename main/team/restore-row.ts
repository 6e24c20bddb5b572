// An event lost by the team record, as team.restore_events takes it back: the columns a writer sends, and
// what the one putting it back knows of where it was (a desk's rollback knows its seq, time and writer;
// serve's journal only the seq it was acknowledged under), and for a desk's own intent its guard.
import type { RestoreRow } from '../store/pg/rollback.js';
import type { NewTeamEvent } from './events.js';
import type { OwnGuard } from './own-guards.js';

export interface LostPlace {
  seq: number | null;
  recordedAt: number | null;
  actor: string | null;
}

/** The row of `e`; an intent of this desk's with its guard (`guard`, own-guards.ts) carries it back too. */
export function restoreRow(e: NewTeamEvent, lost: LostPlace, guard?: OwnGuard | null): RestoreRow {
  const row: RestoreRow = {
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
  if (guard && e.source === 'intent' && guard.merchantReference === e.merchantReference)
    row.guard = {
      fingerprint: guard.fingerprint.toString('hex'),
      charged_at: guard.chargedAt,
      confirmed_repeat: guard.confirmedRepeat,
    };
  return row;
}
