import { useWords } from '../words/index.js';

/** Progress of long work (exports, reconciliation); `value` of `max`, or indeterminate when max is unknown. */
export function ProgressBar({
  label,
  value,
  max,
  onCancel,
}: {
  label: string;
  value: number;
  max?: number;
  onCancel?: () => void;
}) {
  const { t, f } = useWords();
  const pct = max ? Math.min(100, Math.round((value / max) * 100)) : undefined;
  return (
    <div className="progress">
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={max ?? undefined}
        aria-valuenow={max ? value : undefined}
        aria-valuetext={max ? f.percent((pct ?? 0) / 100) : f.number(value)}
        className="progress-track"
      >
        <div
          className={pct === undefined ? 'progress-fill indeterminate' : 'progress-fill'}
          style={pct === undefined ? undefined : { width: `${pct}%` }}
        />
      </div>
      <span className="progress-text">
        {max
          ? t('ui.progress.of', { label, value, max, pct: (pct ?? 0) / 100 })
          : t('ui.progress.count', { label, value })}
      </span>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          {t('ui.cancel')}
        </button>
      )}
    </div>
  );
}
