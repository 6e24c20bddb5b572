// Dedupe keys for events a desktop stores and also records elsewhere (the team record). Both copies
// carry the same key, so the copy pulled back later is recognised and stored once. The key is made from
// the event's content, so a retry of the same event is still one event.
import crypto from 'node:crypto';
import type { NewEvent } from './event-rules.js';

/** The intent_saved event's dedupe key: one intent per reference, whichever desktop stores it first. */
export function intentEventKey(merchantReference: string): string {
  return `intent:${merchantReference}`;
}

/**
 * The event's dedupe key, or one made from its content when it has none (an initialize answer, a
 * resolution). The same event always gets the same key, so a retry is still one event.
 */
export function teamEventKey(ev: NewEvent): string {
  if (ev.dedupeKey) return ev.dedupeKey;
  const digest = crypto
    .createHash('sha256')
    .update(
      JSON.stringify([
        ev.receivedAt,
        ev.status ?? null,
        ev.internalReference ?? null,
        ev.signature,
        ev.amountMinor ?? null,
        ev.currency ?? null,
        ev.payload ?? null,
        ev.note ?? null,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  return `${ev.source}:${ev.kind}:${ev.merchantReference}:${digest}`;
}

/**
 * The event with its key set. A team desktop appends THIS locally and records the same, so the copy it
 * pulls back is recognised as the one it already has.
 */
export function withTeamKey<E extends NewEvent>(ev: E): E {
  return ev.dedupeKey ? ev : { ...ev, dedupeKey: teamEventKey(ev) };
}
