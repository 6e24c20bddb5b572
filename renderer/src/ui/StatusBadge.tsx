// A collection's status as a coloured badge with words (never colour alone), shared by Take payment
// and Collections.
const LABELS: Record<string, { text: string; tone: string }> = {
  INTENT: { text: 'Intent saved', tone: 'off' },
  PENDING: { text: 'Pending', tone: 'warn' },
  REJECTED: { text: 'Rejected', tone: 'err' },
  UNKNOWN: { text: 'Outcome unknown', tone: 'err' },
  COMPLETED: { text: 'Approved', tone: 'ok' },
  FAILED: { text: 'Declined', tone: 'err' },
  CANCELLED: { text: 'Cancelled', tone: 'off' },
};

export function statusLabel(status: string): string {
  return LABELS[status]?.text ?? status;
}

export function StatusBadge({ status }: { status: string }) {
  const l = LABELS[status] ?? { text: status, tone: 'off' };
  return (
    <span className={`badge ${l.tone}`} data-status={status}>
      {l.text}
    </span>
  );
}

const FLAG_LABELS: Record<string, string> = {
  final_status_changed: 'Final status changed',
  amount_mismatch: 'Amount mismatch',
  currency_mismatch: 'Currency mismatch',
  bad_signature: 'Bad signature',
  sources_disagree: 'Sources disagree',
};

export function flagLabel(flag: string): string {
  return FLAG_LABELS[flag] ?? flag.replace(/_/g, ' ');
}

export function Flags({ flags }: { flags: readonly string[] }) {
  if (!flags.length) return <span className="as-of">—</span>;
  return (
    <span className="flags">
      {flags.map((f) => (
        <span key={f} className="badge warn">
          {flagLabel(f)}
        </span>
      ))}
    </span>
  );
}
