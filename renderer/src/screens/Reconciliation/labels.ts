// Words for reconciliation outcomes, sources and signatures, shared by the screen's parts (the catalogue's
// recon.kind.*, recon.source.*, recon.sig.*); a value this version has no words for is shown as it came.
import type { MessageId } from '../../../../main/words/words.shared.js';
import { RECON_KINDS } from '../../../../main/store/sqlite/reconcile/kinds.shared.js';

type T = (id: MessageId) => string;

/** Every outcome a reconciliation stores, and the unknown-reference callbacks the summary counts beside them. */
const KINDS = [...RECON_KINDS, 'orphan_callback'] as const;

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

export const SOURCES = ['intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security'] as const;
const SIGNATURES = ['verified', 'invalid', 'missing', 'not_applicable'] as const;

const known = <K extends string>(list: readonly K[], x: string): x is K => (list as readonly string[]).includes(x);

export const kindLabel = (t: T, k: string): string => (known(KINDS, k) ? t(`recon.kind.${k}`) : k.replace(/_/g, ' '));

export const sourceLabel = (t: T, s: string): string => (known(SOURCES, s) ? t(`recon.source.${s}`) : s);

export const signatureLabel = (t: T, s: string): string => (known(SIGNATURES, s) ? t(`recon.sig.${s}`) : s);

export function kindBadgeClass(k: string): string {
  if (k === 'matched') return 'badge ok';
  if (k === 'pending' || k === 'rejected') return 'badge';
  // A final status the service was allowed to change is for review, not an error.
  if (k === 'stale_pending' || k === 'unknown_outcome' || k === 'final_status_changed') return 'badge warn';
  return 'badge err';
}
