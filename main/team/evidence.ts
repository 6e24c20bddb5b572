// What a team desk believes about a signed event: its own check of the service's signature over the
// bytes the writer kept, never the writer's `signature` column (DESIGN.md "Trust boundaries").
//
// A writer keeps the evidence in team.events.evidence (team migration 11), beside the payload
// (collections/evidence.ts builds it):
// - a callback or an imported callback: the payload is the body exactly as received; the evidence is
//   the hmac-signature and rsa-signature headers as sent ({"hmac": ..., "rsa": ...});
// - a redirect: the query string of the captured URL ({"query": "?..."}), which carries the signatures.
// Each desk decodes that again, checks the signatures with the keys it has (the merchant signing key
// for HMAC, the service public key for RSA-SHA512: either valid is enough), and requires the event's
// columns to be what the signed message says. Whatever it cannot verify is stored as unverified
// ('invalid' or 'missing'), with the reason in its note: the projection never lets it move a status
// and reconciliation raises it as bad_signature, with the writer's login beside it (the actor).
//
// An initialize answer is not signed at all: it is the word of the login whose desk received it, and
// such a word never says a payment ended. An initiate (or intent) event carrying a final status, and a
// person's event (a resolution or a manual status) carrying any status, is stored as kind
// 'bad_signature', so it settles nothing and is an exception.
import { isFinal } from '../collections/model.js';
import { redirectSignatureCheck } from '../collections/redirect-url.js';
import { readSignedCallback } from '../callbacks/ingest.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import type { SignatureState } from '../collections/model.js';
import type { TeamEvent } from './events.js';
import { EVIDENCE_LIMITS, teamJson } from './json-limits.js';

/** The columns of a team event the check reads. */
export type EvidenceEvent = Pick<
  TeamEvent,
  | 'merchantReference'
  | 'internalReference'
  | 'kind'
  | 'status'
  | 'amountMinor'
  | 'currency'
  | 'signature'
  | 'payload'
  | 'evidence'
> & { source: string };

/** A desk's own verdict on one event: the signature state it stores, and why when not verified. */
export interface Verdict {
  signature: SignatureState;
  /** Set when the event is stored as something else than its writer said (an initiate's final status). */
  kind?: string;
  reason?: string;
}

/** Checks one pulled event. */
export type EventVerifier = (ev: EvidenceEvent) => Verdict;

function parsed(evidence: string | null): Record<string, unknown> | null {
  if (!evidence) return null;
  const v = teamJson(evidence, EVIDENCE_LIMITS);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const shown = (v: unknown) => JSON.stringify(v) ?? 'nothing';

/** The first of the event's columns that the signed message does not back, in words; null when all do. */
function mismatch(ev: EvidenceEvent, signed: Record<string, unknown>): string | null {
  const names: Record<string, string> = {
    merchantReference: 'merchant_reference',
    internalReference: 'internal_reference',
    status: 'status',
    amountMinor: 'amount',
    currency: 'currency',
  };
  for (const [k, want] of Object.entries(signed)) {
    const got = (ev as unknown as Record<string, unknown>)[k];
    if (got !== want) return `its ${names[k]} is ${shown(got)}, the signed message says ${shown(want)}`;
  }
  return null;
}

function checkCallback(ev: EvidenceEvent, keys: SignatureKeys): Verdict {
  const e = parsed(ev.evidence);
  if (!e || ev.payload === null)
    return { signature: 'missing', reason: 'no evidence was kept with it (the body and its signatures as received)' };
  const v = readSignedCallback(
    {
      body: ev.payload,
      headers: { 'hmac-signature': text(e.hmac) ?? undefined, 'rsa-signature': text(e.rsa) ?? undefined },
      source: ev.source === 'import' ? 'import' : 'callback',
    },
    keys,
  );
  if (v.result === 'malformed') return { signature: 'invalid', reason: `its body cannot be checked: ${v.message}` };
  if (v.result === 'bad_signature') return { signature: v.signature, reason: v.reason };
  const cb = v.callback;
  // serve leaves out a currency PostgreSQL cannot take (not three letters) and says so in the note.
  const currencyOk = cb.currency === null || /^[A-Z]{3}$/.test(cb.currency);
  const wrong = mismatch(ev, {
    merchantReference: cb.reference,
    internalReference: cb.internalReference,
    status: cb.status,
    amountMinor: cb.amountMinor,
    ...(currencyOk || ev.currency !== null ? { currency: cb.currency } : {}),
  });
  return wrong ? { signature: 'invalid', reason: wrong } : { signature: 'verified' };
}

function checkRedirect(ev: EvidenceEvent, keys: SignatureKeys): Verdict {
  const query = text(parsed(ev.evidence)?.query);
  if (query === null)
    return { signature: 'missing', reason: 'no evidence was kept with it (the redirect as captured)' };
  const params: Record<string, string> = {};
  for (const [k, val] of new URLSearchParams(query)) params[k] = val;
  const check = redirectSignatureCheck(params, keys);
  if (check.state !== 'verified') return { signature: check.state, reason: check.reason ?? 'not verified' };
  const wrong = mismatch(ev, {
    merchantReference: params.merchant_reference ?? '',
    internalReference: params.internal_reference || null,
    status: (params.transaction_status ?? '').toUpperCase() || null,
  });
  return wrong ? { signature: 'invalid', reason: wrong } : { signature: 'verified' };
}

/**
 * The verifier of a team desk, with the keys it has (read once by the caller, per batch or per start:
 * they may be imported after sign-in). Signed sources are checked from their evidence; an initiate is
 * unsigned (and never final); everything else keeps what its writer said (an intent, a person's
 * resolution or status, a security note: their actor says who).
 */
export function teamEventVerifier(keys: SignatureKeys): EventVerifier {
  return (ev) => {
    switch (ev.source) {
      case 'callback':
      case 'import':
        return checkCallback(ev, keys);
      case 'redirect':
        // The agent closing the payment window is the desk's own word that no redirect came: it claims no
        // status, so there is no signature to check (a desk's own copy stores it not_applicable too).
        return ev.kind === 'window_closed' && ev.status === null
          ? { signature: 'not_applicable' }
          : checkRedirect(ev, keys);
      case 'intent':
      case 'initiate':
        return isFinal(ev.status)
          ? {
              signature: 'invalid',
              kind: 'bad_signature',
              reason: `an ${ev.source === 'intent' ? 'intent' : 'initialize answer'} is not signed by the service and cannot say a payment ended (${ev.status})`,
            }
          : { signature: 'not_applicable' };
      case 'manual':
        // A person's resolution is their word, and says who; a status a person records is not the
        // service's, so in a team it never settles a payment: no desk of this app writes one, and the
        // team database refuses one since team migration 13. One an older record holds is no resolution
        // either: stored as kind bad_signature, its status moves nothing and it is an exception.
        return ev.status !== null
          ? {
              signature: 'invalid',
              kind: 'bad_signature',
              reason: `a ${ev.kind === 'resolution' ? 'resolution' : 'status recorded by a person'} is not signed by the service and cannot give a payment a status (${ev.status}); its status is ignored`,
            }
          : { signature: 'not_applicable' };
      default:
        return { signature: ev.signature };
    }
  };
}

/** The sources whose events the service signs: a desk believes them only once it checked them. */
export const SIGNED_SOURCES: ReadonlySet<string> = new Set(['callback', 'import', 'redirect']);

const NOT_VERIFIED = 'not verified by this desk: ';

/**
 * The verdict a signed event was stored with (its signature state, and the reason unverifiedNote put in
 * its note after the writer's note), when it is one a check of this event could give; null otherwise. A new desk takes a
 * snapshot's verdicts with this before re-checking them itself (sync/signature-check.ts).
 */
export function verdictAsStored(writerNote: string | null, signature: unknown, note: unknown): Verdict | null {
  if (signature === 'verified') return note === writerNote ? { signature: 'verified' } : null;
  if ((signature !== 'invalid' && signature !== 'missing') || typeof note !== 'string') return null;
  const prefix = writerNote ? `${writerNote}; ${NOT_VERIFIED}` : NOT_VERIFIED;
  if (!note.startsWith(prefix) || note.length === prefix.length) return null;
  return { signature, reason: note.slice(prefix.length) };
}

/** The note an unverified event is stored with: the writer's note, then why this desk did not believe it. */
export function unverifiedNote(note: string | null, verdict: Verdict): string | null {
  if (!verdict.reason) return note;
  const why = `${NOT_VERIFIED}${verdict.reason}`;
  return note ? `${note}; ${why}` : why;
}
