// Counts by outcome, a bar chart. A module of its own so the screen loads it (and recharts) lazily:
// the chart library is over a third of the renderer's code and no first screen needs it to show.
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReconcileSummary } from '../../../../main/reconcile/types.shared.js';
import { OUTCOME_ORDER, kindLabel } from './labels.js';
import { useWords } from '../../words/index.js';

const BAR_COLOR: Record<string, string> = {
  matched: '#17804a',
  pending: '#5b6474',
  rejected: '#8a94a6',
  stale_pending: '#9a6200',
  unknown_outcome: '#9a6200',
  // A final status the service was allowed to change is for review (warning colour), not an error.
  final_status_changed: '#9a6200',
};

export function OutcomeChart({ summary }: { summary: ReconcileSummary }) {
  const { t, f } = useWords();
  const rows = [
    ...OUTCOME_ORDER,
    ...Object.keys(summary.byOutcome).filter((k) => !(OUTCOME_ORDER as readonly string[]).includes(k)),
  ]
    .map((k) => ({ kind: k, label: kindLabel(t, k), n: summary.byOutcome[k] ?? 0 }))
    .filter((r) => r.n > 0 || r.kind === 'matched');
  const text = rows.map((r) => t('recon.chart.item', { label: r.label, n: r.n })).join(', ');
  return (
    <figure className="chart" aria-label={t('recon.chart.label', { text })}>
      <ResponsiveContainer width="100%" height={Math.max(120, rows.length * 30 + 30)}>
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
          <CartesianGrid stroke="#eef0f3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tickFormatter={(v: number) => f.number(v)} />
          <YAxis type="category" dataKey="label" width={220} />
          <Tooltip />
          <Bar dataKey="n" name={t('recon.chart.bar')} isAnimationActive={false}>
            {rows.map((r) => (
              <Cell key={r.kind} fill={BAR_COLOR[r.kind] ?? '#b3261e'} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="as-of">{t('recon.chart.caption', { n: summary.collections })}</figcaption>
    </figure>
  );
}
