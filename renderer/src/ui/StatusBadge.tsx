// A collection's status as a coloured badge with words (never colour alone), used wherever a status is
// shown; the words come from ./status.ts.
import { statusLabel, statusTone } from './status.js';

export function StatusBadge({ status }: { status: string | null | undefined }) {
  if (!status) return <span className="as-of">—</span>;
  return (
    <span className={`badge ${statusTone(status)}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}

/**
 * A new team desk shows its copy before it has re-checked every signature it took from the team's
 * snapshot: a collection resting on one says so beside its status (it is neither matched nor final yet).
 */
export function SignatureBeingChecked({ checking }: { checking: boolean }) {
  if (!checking) return null;
  return (
    <span
      className="badge off"
      data-signature-check="pending"
      title="This desk has not yet re-checked the service's signature on an event this status rests on"
    >
      Signature being checked
    </span>
  );
}

const FLAG_LABELS: Record<string, string> = {
  final_status_changed: 'Changed after final',
  amount_mismatch: 'Amount mismatch',
  currency_mismatch: 'Currency mismatch',
  bad_signature: 'Bad signature',
  sources_disagree: 'Sources disagree',
  not_accepted_by_team: 'Not accepted by the team database',
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
