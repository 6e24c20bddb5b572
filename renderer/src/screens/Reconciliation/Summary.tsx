// Open exceptions by kind, and the full recompute with progress + cancel (the outcome chart is OutcomeChart.tsx).
import { useState } from 'react';
import type { ReconcileSummary } from '../../../../main/reconcile/types.shared.js';
import { useDeskAction, useDeskEvent } from '../../hooks.js';
import { ErrorBanner, ProgressBar } from '../../ui/index.js';
import { EXCEPTION_KINDS, kindLabel } from './labels.js';
import { formatDateTime } from '../../ui/format.js';

/** What needs a person: open exceptions plus callbacks for references this desk does not know. */
function needsAttention(summary: Pick<ReconcileSummary, 'openExceptions' | 'orphans'>): number {
  return summary.openExceptions + summary.orphans.open;
}

export function OpenCounts({ summary }: { summary: ReconcileSummary }) {
  const kinds = [...EXCEPTION_KINDS, 'orphan_callback'];
  return (
    <section className="panel" aria-labelledby="open-title">
      <h2 id="open-title">
        Needs attention: <span data-testid="needs-attention">{needsAttention(summary).toLocaleString()}</span>{' '}
        <span className="headline-parts">
          (<span data-testid="open-exceptions">{summary.openExceptions.toLocaleString()}</span> exception
          {summary.openExceptions === 1 ? '' : 's'},{' '}
          <span data-testid="open-orphans">{summary.orphans.open.toLocaleString()}</span> unknown-reference callback
          {summary.orphans.open === 1 ? '' : 's'})
        </span>
      </h2>
      <ul className="stat-list" aria-label="Open exceptions by kind">
        {kinds.map((k) => {
          const n = k === 'orphan_callback' ? summary.orphans.open : (summary.openByKind[k] ?? 0);
          return (
            <li key={k} className={n > 0 ? (k === 'final_status_changed' ? 'review' : 'alert') : undefined}>
              <span>{kindLabel(k)}</span>
              <span className="n">{n.toLocaleString()}</span>
            </li>
          );
        })}
      </ul>
      <p className="as-of">
        {summary.resolved.toLocaleString()} resolved · computed {formatDateTime(summary.computedAt)}
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
  const [result, setResult] = useState<string | null>(null);
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
    if (r)
      setResult(
        `Reconciled ${r.collections.toLocaleString()} collections: ${r.exceptions.toLocaleString()} with exceptions.`,
      );
    onDone();
  };
  const cancelled = run.error?.kind === 'cancelled';
  return (
    <div className="full-run">
      <div className="form-actions">
        <button type="button" className="primary" onClick={() => void start()} disabled={runId !== null}>
          Run full reconciliation
        </button>
        {runId && progress && (
          <ProgressBar
            label="Reconciling"
            value={progress.done}
            {...(progress.total > 0 ? { max: progress.total } : {})}
            onCancel={() => void cancel.run({ runId })}
          />
        )}
      </div>
      {result && (
        <p role="status" className="as-of">
          {result}
        </p>
      )}
      {cancelled ? (
        <p role="status" className="warn-text">
          Full reconciliation cancelled; results already computed are kept.
        </p>
      ) : (
        <ErrorBanner error={run.error} title="Full reconciliation failed" />
      )}
    </div>
  );
}
