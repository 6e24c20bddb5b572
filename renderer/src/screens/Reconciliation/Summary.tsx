// Counts by outcome (a bar chart), open exceptions by kind, and the full recompute with progress + cancel.
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReconcileSummary } from '../../../../main/reconcile/types.js';
import { useDeskAction, useDeskEvent } from '../../hooks.js';
import { ErrorBanner, ProgressBar } from '../../ui/index.js';
import { EXCEPTION_KINDS, OUTCOME_ORDER, kindLabel } from './labels.js';

const BAR_COLOR: Record<string, string> = { matched: '#17804a', pending: '#5b6474', rejected: '#8a94a6', stale_pending: '#9a6200', unknown_outcome: '#9a6200' };

export function OutcomeChart({ summary }: { summary: ReconcileSummary }) {
  const rows = [...OUTCOME_ORDER, ...Object.keys(summary.byOutcome).filter((k) => !(OUTCOME_ORDER as readonly string[]).includes(k))]
    .map((k) => ({ kind: k, label: kindLabel(k), n: summary.byOutcome[k] ?? 0 }))
    .filter((r) => r.n > 0 || r.kind === 'matched');
  const text = rows.map((r) => `${r.label}: ${r.n}`).join(', ');
  return (
    <figure className="chart" aria-label={`Collections by outcome: ${text}`}>
      <ResponsiveContainer width="100%" height={Math.max(120, rows.length * 30 + 30)}>
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
          <CartesianGrid stroke="#eef0f3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tickFormatter={(v: number) => v.toLocaleString()} />
          <YAxis type="category" dataKey="label" width={190} />
          <Tooltip />
          <Bar dataKey="n" name="Collections" isAnimationActive={false}>
            {rows.map((r) => (
              <Cell key={r.kind} fill={BAR_COLOR[r.kind] ?? '#b3261e'} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="as-of">Collections by reconciliation outcome ({summary.collections.toLocaleString()} in all).</figcaption>
    </figure>
  );
}

export function OpenCounts({ summary }: { summary: ReconcileSummary }) {
  const kinds = [...EXCEPTION_KINDS, 'orphan_callback'];
  return (
    <section className="panel" aria-labelledby="open-title">
      <h2 id="open-title">
        Open exceptions: <span data-testid="open-exceptions">{summary.openExceptions.toLocaleString()}</span>
      </h2>
      <ul className="stat-list" aria-label="Open exceptions by kind">
        {kinds.map((k) => {
          const n = k === 'orphan_callback' ? summary.orphans.open : (summary.openByKind[k] ?? 0);
          return (
            <li key={k} className={n > 0 ? 'alert' : undefined}>
              <span>{kindLabel(k)}</span>
              <span className="n">{n.toLocaleString()}</span>
            </li>
          );
        })}
      </ul>
      <p className="as-of">
        {summary.resolved.toLocaleString()} resolved · computed {new Date(summary.computedAt).toLocaleTimeString()}
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
    if (r) setResult(`Reconciled ${r.collections.toLocaleString()} collections: ${r.exceptions.toLocaleString()} with exceptions.`);
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
