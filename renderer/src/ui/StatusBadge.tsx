// A collection's status as a coloured badge with words (never colour alone), used wherever a status is
// shown; the words come from the catalogue (ui.status.*) through ./status.ts.
import { statusLabel, statusTone } from './status.js';
import { useWords } from '../words/index.js';
import type { MessageId } from '../../../main/words/words.shared.js';

export function StatusBadge({ status }: { status: string | null | undefined }) {
  const { t } = useWords();
  if (!status) return <span className="as-of">—</span>;
  return (
    <span className={`badge ${statusTone(status)}`} data-status={status}>
      {statusLabel(t, status)}
    </span>
  );
}

/**
 * A new team desk shows its copy before it has re-checked every signature it took from the team's
 * snapshot: a collection resting on one says so beside its status (it is neither matched nor final yet).
 */
export function SignatureBeingChecked({ checking }: { checking: boolean }) {
  const { t } = useWords();
  if (!checking) return null;
  return (
    <span className="badge off" data-signature-check="pending" title={t('ui.signatureCheckingTitle')}>
      {t('ui.signatureChecking')}
    </span>
  );
}

const FLAGS = [
  'final_status_changed',
  'amount_mismatch',
  'currency_mismatch',
  'bad_signature',
  'sources_disagree',
  'not_accepted_by_team',
] as const;

/** A flag's words ("Changed after final"); a flag this version does not know is named as it came. */
export function flagLabel(t: (id: MessageId, values?: Record<string, string>) => string, flag: string): string {
  return (FLAGS as readonly string[]).includes(flag)
    ? t(`ui.flag.${flag as (typeof FLAGS)[number]}`)
    : t('ui.flag.other', { flag: flag.replace(/_/g, ' ') });
}

export function Flags({ flags }: { flags: readonly string[] }) {
  const { t } = useWords();
  if (!flags.length) return <span className="as-of">—</span>;
  return (
    <span className="flags">
      {flags.map((f) => (
        <span key={f} className="badge warn">
          {flagLabel(t, f)}
        </span>
      ))}
    </span>
  );
}
