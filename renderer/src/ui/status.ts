// The words for a collection's status, one list for every screen (badges, tables, filters, sources), so
// the user never sees the service's raw codes (COMPLETED, FAILED, INTENT...). No React: plain tests and
// non-component modules import it.

export type StatusTone = 'ok' | 'warn' | 'err' | 'off';

const LABELS: Record<string, { text: string; tone: StatusTone }> = {
  INTENT: { text: 'Intent saved', tone: 'off' },
  PENDING: { text: 'Pending', tone: 'warn' },
  COMPLETED: { text: 'Approved', tone: 'ok' },
  FAILED: { text: 'Declined', tone: 'err' },
  CANCELLED: { text: 'Cancelled', tone: 'off' },
  UNKNOWN: { text: 'Outcome unknown', tone: 'err' },
  REJECTED: { text: 'Rejected', tone: 'err' },
};

/** Every status a filter can offer, in the order a person thinks of them. */
export const STATUS_CODES = ['COMPLETED', 'FAILED', 'CANCELLED', 'PENDING', 'UNKNOWN', 'REJECTED', 'INTENT'] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

/** "COMPLETED" -> "Approved"; a dash for none; an unexpected code is shown as it came. */
export function statusLabel(status: string | null | undefined): string {
  if (!status) return '—';
  return LABELS[status.toUpperCase()]?.text ?? status;
}

export function statusTone(status: string | null | undefined): StatusTone {
  return (status && LABELS[status.toUpperCase()]?.tone) || 'off';
}

/** A final status (the service may still change it when allow_final_status_change is set). */
export function isFinalStatus(status: string | null | undefined): boolean {
  return status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED';
}

const METHOD_LABELS: Record<string, string> = { CARD: 'Card', MOBILE_MONEY: 'Mobile Money' };

/** A payment method's name, the same in a table cell and in a filter. */
export function methodLabel(method: string): string {
  return METHOD_LABELS[method] ?? method.charAt(0) + method.slice(1).toLowerCase().replace(/_/g, ' ');
}
