// The vocabulary of a collection's life (DESIGN.md, Data). Shared by charging, callbacks,
// reconciliation, reports and the UI, so it lives in one place. The final statuses are the service's
// own (a collection ends where the service says it ended), so FinalStatus is its type, not a copy.
import type { FinalStatus } from '../service/types.js';

export type CollectionStatus = 'INTENT' | 'PENDING' | 'REJECTED' | 'UNKNOWN' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** COMPLETED, FAILED or CANCELLED: the service's final word on a collection. */
export function isFinal(s: string | null | undefined): s is FinalStatus {
  return s === 'COMPLETED' || s === 'FAILED' || s === 'CANCELLED';
}

/** Where an event came from (collection_events.source, and team.events.source). */
export const EVENT_SOURCES = ['intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** What happened (collection_events.kind). */
export type EventKind =
  | 'intent_saved' // source intent: the agent's intent, saved before anything is sent
  | 'initialize_accepted' // source initiate: 202, status PENDING, payload has payment_url
  | 'initialize_rejected' // source initiate: a 4xx that proves nothing was created, status REJECTED
  | 'initialize_unknown' // source initiate: timeout/reset/5xx/unreadable, status UNKNOWN
  | 'initialize_exists' // source initiate: re-send answered "duplicate reference": it exists
  | 'outcome' // source redirect|callback|import: a final status reported by the service
  | 'final_status_changed' // source callback|import|redirect: the SAME source family later reported a different final status (allow_final_status_change); flagged, never an overwrite
  | 'window_closed' // source redirect: the agent closed the payment window before any redirect
  | 'bad_signature' // source security: a callback or redirect whose signatures did not verify
  | 'resolution' // source manual: a person resolved an exception, with a note
  | 'manual_status'; // source manual: a person recorded an outcome learned elsewhere, with a note

/** What the signature check said of an event (collection_events.signature, and team.events.signature). */
export const SIGNATURE_STATES = ['verified', 'invalid', 'missing', 'not_applicable'] as const;
export type SignatureState = (typeof SIGNATURE_STATES)[number];
