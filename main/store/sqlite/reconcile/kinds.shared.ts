// The kinds a reconciliation row stores (its outcome, kinds and open_kinds columns), in priority order:
// the vocabulary of the reconciliation table, which the rules (main/reconcile/classify.ts) decide and
// the set-based full pass (full-pass-sql.ts) encodes as bits in this order. Defined here, below both, so
// the store's statements need not import the rules; reconcile/types.shared.ts re-exports it for the
// IPC contract and the renderer. No imports: the renderer type-checks against this file.
/** Kinds a person must look at, in priority order. */
export const EXCEPTION_KINDS = [
  'currency_mismatch',
  'amount_mismatch',
  'bad_signature',
  'redirect_callback_disagree',
  'final_status_changed',
  'unknown_outcome',
  'stale_pending',
] as const;

/**
 * Every kind in priority order (the first that applies is a collection's primary outcome): the
 * exceptions, then matched, pending and rejected, which are not (rejected: nothing was created).
 */
export const RECON_KINDS = [...EXCEPTION_KINDS, 'rejected', 'pending', 'matched'] as const;

export type ReconKind = (typeof RECON_KINDS)[number];

export function isExceptionKind(k: string): boolean {
  return (EXCEPTION_KINDS as readonly string[]).includes(k);
}
