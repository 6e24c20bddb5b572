// Words for reconciliation outcomes and sources, shared by the screen's parts.
const KIND_LABEL: Record<string, string> = {
  currency_mismatch: 'Currency mismatch',
  amount_mismatch: 'Amount mismatch',
  bad_signature: 'Bad signature',
  redirect_callback_disagree: 'Redirect and callback disagree',
  final_status_changed: 'Changed after final',
  unknown_outcome: 'Unknown outcome',
  stale_pending: 'Stale pending',
  rejected: 'Rejected',
  pending: 'Pending',
  matched: 'Matched',
  orphan_callback: 'Callback for unknown reference',
};

/** Exception kinds, in the order the queue filter lists them (the contract's enum). */
export const EXCEPTION_KINDS = [
  'final_status_changed',
  'redirect_callback_disagree',
  'amount_mismatch',
  'currency_mismatch',
  'bad_signature',
  'unknown_outcome',
  'stale_pending',
] as const;

export const OUTCOME_ORDER = ['matched', 'pending', 'rejected', ...EXCEPTION_KINDS] as const;

export const SOURCE_LABEL: Record<string, string> = {
  intent: 'Intent',
  initiate: 'Initiate',
  redirect: 'Redirect',
  callback: 'Callback',
  import: 'Import',
  manual: 'Manual',
  security: 'Security',
};

export const SIGNATURE_LABEL: Record<string, string> = {
  verified: 'verified',
  invalid: 'INVALID',
  missing: 'missing',
  not_applicable: 'n/a',
};

export const kindLabel = (k: string) => KIND_LABEL[k] ?? k.replace(/_/g, ' ');

export function kindBadgeClass(k: string): string {
  if (k === 'matched') return 'badge ok';
  if (k === 'pending' || k === 'rejected') return 'badge';
  // A final status the service was allowed to change is for review, not an error.
  if (k === 'stale_pending' || k === 'unknown_outcome' || k === 'final_status_changed') return 'badge warn';
  return 'badge err';
}
