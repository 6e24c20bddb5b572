// The kinds a reconciliation row stores (its outcome, kinds and open_kinds columns), in priority order:
// the vocabulary of the reconciliation table, which the rules (main/reconcile/classify.ts) decide and
// the set-based full pass (full-pass-sql.ts) encodes as bits in this order. Defined here, below both, so
// the store's statements need not import the rules; reconcile/types.shared.ts re-exports it for the
// IPC contract and the renderer. No imports: the renderer type-checks against this file.
export type ReconKind =
  | 'currency_mismatch'
  | 'amount_mismatch'
  | 'bad_signature'
  | 'redirect_callback_disagree'
  | 'final_status_changed'
  | 'unknown_outcome'
  | 'stale_pending'
  | 'rejected'
  | 'pending'
  | 'matched';

/** Every kind in priority order: the first that applies is a collection's primary outcome. */
export const RECON_KINDS: readonly ReconKind[] = [
  'currency_mismatch',
  'amount_mismatch',
  'bad_signature',
  'redirect_callback_disagree',
  'final_status_changed',
  'unknown_outcome',
  'stale_pending',
  'rejected',
  'pending',
  'matched',
];

/** Kinds a person must look at. matched, pending and rejected (nothing was created) are not exceptions. */
export const EXCEPTION_KINDS = [
  'currency_mismatch',
  'amount_mismatch',
  'bad_signature',
  'redirect_callback_disagree',
  'final_status_changed',
  'unknown_outcome',
  'stale_pending',
] as const satisfies readonly ReconKind[];

export function isExceptionKind(k: string): boolean {
  return (EXCEPTION_KINDS as readonly string[]).includes(k);
}
