// The words for a collection's status, one list for every screen (badges, tables, filters, sources), so
// the user never sees the service's raw codes (COMPLETED, FAILED, INTENT...). No React: plain tests and
// non-component modules import it; the text itself is the catalogue's (ui.status.*), said by the caller.
import type { MessageId } from '../../../main/words/words.shared.js';

export type StatusTone = 'ok' | 'warn' | 'err' | 'off';

const TONES: Record<string, StatusTone> = {
  INTENT: 'off',
  PENDING: 'warn',
  COMPLETED: 'ok',
  FAILED: 'err',
  CANCELLED: 'off',
  UNKNOWN: 'err',
  REJECTED: 'err',
};

/** Every status a filter can offer, in the order a person thinks of them. */
export const STATUS_CODES = ['COMPLETED', 'FAILED', 'CANCELLED', 'PENDING', 'UNKNOWN', 'REJECTED', 'INTENT'] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

/** "COMPLETED" -> its words ("Approved", "Approuvé"); a dash for none; an unexpected code is shown as it came. */
export function statusLabel(t: (id: MessageId) => string, status: string | null | undefined): string {
  if (!status) return '—';
  const code = status.toUpperCase();
  return Object.hasOwn(TONES, code) ? t(`ui.status.${code as StatusCode}`) : status;
}

export function statusTone(status: string | null | undefined): StatusTone {
  return (status && TONES[status.toUpperCase()]) || 'off';
}

/** A final status (the service may still change it when allow_final_status_change is set). */
export function isFinalStatus(status: string | null | undefined): boolean {
  return status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED';
}

/** A payment method's name, the same in a table cell and in a filter. */
export function methodLabel(t: (id: MessageId, values?: Record<string, string>) => string, method: string): string {
  if (method === 'CARD' || method === 'MOBILE_MONEY') return t(`ui.method.${method}`);
  return method.charAt(0) + method.slice(1).toLowerCase().replace(/_/g, ' ');
}
