// What this desk holds that the record may have lost after it went back (rollback.ts), and how each is put
// back: as the record held it (witnessed), by this desk's own word, or not at all.
import {
  heldKeysAfter,
  heldEventsByKeys,
  heldEventsOf,
  intentColumnsOf,
  localIdOfKey,
  sentOutboxSince,
  unsentOutboxKeys,
  witnessedBetween,
  type HeldEventRow,
} from '../../store/sqlite/team/rollback.js';
import { type NewTeamEvent, type TeamEvent } from '../events.js';
import { SIGNED_SOURCES } from '../evidence.js';
import { intentEventKey, toTeamEvent } from '../record.js';
import { parseWitnessed } from './witness.js';
import type { WentBack } from './rollback-find.js';
import { localEvent } from './rollback-context.js';
import type { RollbackContext } from './rollback-context.js';
import { KEYS_PAGE } from './rollback-context.js';

/** A journalled team event as a writer sends it. */
function asNew(e: TeamEvent): NewTeamEvent {
  return {
    eventKey: e.eventKey,
    merchantReference: e.merchantReference,
    internalReference: e.internalReference,
    source: e.source,
    kind: e.kind,
    status: e.status,
    amountMinor: e.amountMinor,
    currency: e.currency,
    signature: e.signature,
    payload: e.payload,
    evidence: e.evidence,
    note: e.note,
    paymentUrl: e.paymentUrl,
    statusMessage: e.statusMessage,
    occurredAt: e.occurredAt,
  };
}
/** Something this desk holds that the record may have lost. */
export interface Candidate {
  key: string;
  reference: string;
  /** Its seq in the record that lost it, when this desk knows it. */
  seq: number | null;
  /**
   * The event as a witness puts it back; why this desk cannot; or `held`: only its copy has it, read
   * (resolveHeld) once the record is found to lack it.
   */
  putBack:
    | { event: NewTeamEvent; own: boolean; recordedAt: number | null; actor: string | null }
    | { why: string }
    | { held: true };
  order: number;
}
function ownIntent(ctx: RollbackContext, r: HeldEventRow): NewTeamEvent | null {
  const { db } = ctx;
  const c = intentColumnsOf(db, r.merchant_reference);
  if (!c) return null;
  const { merchant_reference: _ref, amount_minor, currency, description, ...rest } = c;
  const details = {
    createdAt: rest.created_at,
    customerName: rest.customer_name,
    customerEmail: rest.customer_email,
    chargeCustomer: rest.charge_customer === 1,
    allowFinalStatusChange: rest.allow_final_status_change === 1,
    operator: rest.operator,
    providerCode: rest.provider_code,
    redirectUrl: rest.redirect_url,
    cardBrand: rest.card_brand,
    cardLast4: rest.card_last4,
  };
  return {
    eventKey: intentEventKey(r.merchant_reference),
    merchantReference: r.merchant_reference,
    source: 'intent',
    kind: 'intent',
    status: 'INTENT',
    amountMinor: amount_minor,
    currency,
    signature: 'not_applicable',
    payload: JSON.stringify({ description, ...details }),
    occurredAt: rest.created_at,
  };
}
/** The candidates: witnessed after the common point, this desk's own sent or written within the horizon, and every local event after the common one. */
export function candidates(ctx: RollbackContext, w: WentBack): Map<string, Candidate> {
  const { db, login, horizonMs } = ctx;
  const out = new Map<string, Candidate>();
  const unsent = unsentOutboxKeys(db); // the push sends those; they were never in any record
  let order = 0;
  const witnessed = witnessedBetween(db, w.common.seq, w.head.seq);
  const payloads = new Map(
    heldEventsByKeys(
      db,
      witnessed.filter((x) => x.event !== null).map((x) => x.event_key),
    ).map((r) => [r.dedupe_key!, r.payload]),
  );
  for (const x of witnessed) {
    if (unsent.has(x.event_key)) continue;
    const ev = parseWitnessed(x.event, (key) => payloads.get(key));
    out.set(x.event_key, {
      key: x.event_key,
      reference: ev?.merchantReference ?? '',
      seq: x.seq,
      putBack: ev
        ? { event: asNew(ev), own: login !== null && ev.actor === login, recordedAt: ev.recordedAt, actor: ev.actor }
        : { held: true },
      order: order++,
    });
  }
  const since = ctx.clock.now() - horizonMs;
  for (const r of sentOutboxSince(db, since)) {
    const c = out.get(r.event_key);
    const event = toTeamEvent(
      localEvent(r, r.kind, {
        dedupeKey: r.event_key,
        evidence: r.evidence,
        paymentUrl: r.payment_url,
        statusMessage: r.status_message,
      }),
    );
    const putBack = { event, own: true, recordedAt: null, actor: r.actor };
    if (c) {
      if (!('event' in c.putBack)) c.putBack = putBack;
    } else
      out.set(r.event_key, { key: r.event_key, reference: r.merchant_reference, seq: null, putBack, order: order++ });
  }
  // Every local event after the common one, by key only (a desk far behind reads its rows only for the
  // few the record lacks), and this desk's own of the horizon (written before it applied the common one).
  const fromLocal = (key: string, reference: string) => {
    if (unsent.has(key) || out.has(key)) return;
    out.set(key, { key, reference, seq: null, putBack: { held: true }, order: order++ });
  };
  const after = w.common.key ? (localIdOfKey(db, w.common.key) ?? 0) : 0;
  for (let id = after; ;) {
    const page = heldKeysAfter(db, id, KEYS_PAGE);
    for (const r of page) fromLocal(r.dedupe_key, r.merchant_reference);
    if (page.length < KEYS_PAGE) break;
    id = page[page.length - 1]!.id;
  }
  if (login !== null) for (const r of heldEventsOf(db, login, since)) fromLocal(r.dedupe_key!, r.merchant_reference);
  return out;
}
/**
 * How this desk puts back the held events among `list` that only its copy has (no journal, no outbox):
 * its own by its login's word (an intent from its collection's row), the others' not at all.
 */
export function resolveHeld(ctx: RollbackContext, list: readonly Candidate[]): void {
  const { db, login } = ctx;
  const held = list.filter((c) => 'held' in c.putBack);
  const rows = new Map(
    heldEventsByKeys(
      db,
      held.map((c) => c.key),
    ).map((r) => [r.dedupe_key!, r]),
  );
  for (const c of held) {
    const r = rows.get(c.key);
    if (!r) {
      c.putBack = { why: 'this desk no longer holds it' };
      continue;
    }
    c.reference ||= r.merchant_reference;
    if (login !== null && r.actor === login) {
      const event =
        r.source === 'intent' ? ownIntent(ctx, r) : toTeamEvent(localEvent(r, r.kind, { dedupeKey: c.key }));
      c.putBack = event
        ? { event, own: true, recordedAt: null, actor: r.actor }
        : { why: 'this desk no longer holds the intent it wrote' };
    } else
      c.putBack = {
        why: SIGNED_SOURCES.has(r.source)
          ? 'this desk holds it without the service\u2019s signatures (its evidence), so it cannot prove it'
          : `written by ${r.actor ?? 'another desk'}, not signed by the service: only that desk can put it back`,
      };
  }
}
