// MINIMAL STAND-IN (replaced at the merge by the real record.ts): writes this desktop's facts to the
// team database with the simplest honest implementation of the agreed interface.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { NewEvent } from '../collections/events.js';
import { appendEvents, type AppendResult, type NewTeamEvent } from './events.js';
import { createIntent } from './intents.js';

/** What charge/initialize.ts stores for a collection's intent (never card data). */
export interface TeamIntent {
  merchantReference: string;
  amountMinor: number;
  currency: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  /** The payment option (provider code) the charge goes through. */
  providerCode: string;
  /** What another desk needs to show the collection and send it again with the same reference. */
  redirectUrl: string;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  cardBrand: string;
  cardLast4: string;
  /** The operator name on the desk that took it (the database records the login as the actor). */
  operator: string;
}

/** A local event as the team log holds it; a missing dedupe key gets a fresh one. */
export function toTeamEvent(ev: NewEvent): NewTeamEvent {
  return {
    eventKey: ev.dedupeKey ?? `${ev.source}:${ev.kind}:${ev.merchantReference}:${crypto.randomUUID()}`,
    merchantReference: ev.merchantReference,
    internalReference: ev.internalReference ?? null,
    source: ev.source,
    kind: ev.kind,
    status: ev.status ?? null,
    amountMinor: ev.amountMinor ?? null,
    currency: ev.currency ?? null,
    signature: ev.signature,
    payload: ev.payload ?? null,
    note: ev.note ?? null,
    occurredAt: ev.receivedAt,
  };
}

/** The intent row and its 'intent' event, in one transaction; a duplicate reference names who holds it. */
export async function recordIntent(pool: pg.Pool, intent: TeamIntent): Promise<{ seq: number }> {
  const created = await createIntent(pool, {
    merchantReference: intent.merchantReference,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
    description: intent.description,
    details: {
      customer_name: intent.customerName,
      customer_email: intent.customerEmail,
      provider_code: intent.providerCode,
      redirect_url: intent.redirectUrl,
      charge_customer: intent.chargeCustomer,
      allow_final_status_change: intent.allowFinalStatusChange,
      card_brand: intent.cardBrand,
      card_last4: intent.cardLast4,
      operator: intent.operator,
    },
  });
  return { seq: created.seq };
}

export async function recordEvents(pool: pg.Pool, events: readonly NewEvent[]): Promise<AppendResult> {
  return appendEvents(pool, events.map(toTeamEvent));
}
