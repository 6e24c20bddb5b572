// Open exceptions by kind, and the full recompute with progress + cancel (the outcome chart is OutcomeChart.tsx).
import { useState } from 'react';
import type { ReconcileSummary } from '../../../../main/reconcile/types.shared.js';
import { useDeskAction, useDeskEvent } from '../../hooks.js';
import { ErrorBanner, ProgressBar } from '../../ui/index.js';
import { EXCEPTION_KINDS, kindLabel } from './labels.js';
import { useWords } from '../../words/index.js';

/** What needs a person: open exceptions plus callbacks for references this desk does not know. */
function needsAttention(summary: Pick<ReconcileSummary, 'openExceptions' | 'orphans'>): number {
  return summary.openExceptions + summary.orphans.open;
}

export function OpenCounts({ summary }: { summary: ReconcileSummary }) {
  const { t, rich, f } = useWords();
  const kinds = [...EXCEPTION_KINDS, 'orphan_callback'];
  return (
    <section className="panel" aria-labelledby="open-title">
      <h2 id="open-title">
        {t('recon.needsAttention')} <span data-testid="needs-attention">{f.number(needsAttention(summary))}</span>{' '}
        <span className="headline-parts">
          {rich('recon.parts', {
            exceptions: summary.openExceptions,
            orphans: summary.orphans.open,
            exceptionsShown: <span data-testid="open-exceptions">{f.number(summary.openExceptions)}</span>,
            orphansShown: <span data-testid="open-orphans">{f.number(summary.orphans.open)}</span>,
          })}
        </span>
      </h2>
      <ul className="stat-list" aria-label={t('recon.openByKind')}>
        {kinds.map((k) => {
          const n = k === 'orphan_callback' ? summary.orphans.open : (summary.openByKind[k] ?? 0);
          return (
            <li key={k} className={n > 0 ? (k === 'final_status_changed' ? 'review' : 'alert') : undefined}>
              <span>{kindLabel(t, k)}</span>
              <span className="n">{f.number(n)}</span>
            </li>
          );
        })}
      </ul>
      <p className="as-of">
        {t('recon.resolvedComputed', { resolved: summary.resolved, computedAt: summary.computedAt })}
      </p>
    </section>
  );
}

/** "Run full reconciliation" with a progress bar and Cancel. */
export function FullRun({ onDone }: { onDone: () => void }) {
  const run = useDeskAction('reconcile.run');
  const cancel = useDeskAction('reconcile.cancelRun');
  const [runId, setRunId] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<{ collections: number; exceptions: number } | null>(null);
  const { t } = useWords();
  useDeskEvent('reconcile.progress', (p) => {
    if (runId) setProgress(p);
  });
  const start = async () => {
    const id = `run-${Date.now().toString(36)}`;
    setRunId(id);
    setResult(null);
    setProgress({ done: 0, total: 0 });
    const r = await run.run({ runId: id });
    setRunId(null);
    setProgress(null);
    if (r) setResult({ collections: r.collections, exceptions: r.exceptions });
    onDone();
  };
  const cancelled = run.error?.kind === 'cancelled';
  return (
    <div className="full-run">
      <div className="form-actions">
        <button type="button" className="primary" onClick={() => void start()} disabled={runId !== null}>
          {t('recon.run')}
        </button>
        {runId && progress && (
          <ProgressBar
            label={t('recon.reconciling')}
            value={progress.done}
            {...(progress.total > 0 ? { max: progress.total } : {})}
            onCancel={() => void cancel.run({ runId })}
          />
        )}
      </div>
      {result && (
        <p role="status" className="as-of">
          {t('recon.reconciled', result)}
        </p>
      )}
      {cancelled ? (
        <p role="status" className="warn-text">
          {t('recon.runCancelled')}
        </p>
      ) : (
        <ErrorBanner error={run.error} title={t('recon.runFailed')} />
      )}
    </div>
  );
}
