import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { currencyExponent, displayMinor } from '../../../../main/money/index.js';
import type { BalancePointView } from '../../../../main/ipc/contract/balances.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading } from '../../ui/index.js';

const COLORS = ['#1f5fbf', '#17804a', '#9a6200', '#8a3ab9'];

interface Row {
  at: number;
  [walletType: string]: number;
}

/** Step series: at every change, every wallet's actual balance as of then (carried forward). */
function toRows(points: BalancePointView[], to: number): { rows: Row[]; wallets: string[] } {
  const wallets = [...new Set(points.map((p) => p.walletType))].sort();
  const current: Record<string, number> = {};
  const rows: Row[] = [];
  for (const p of [...points].sort((a, b) => a.at - b.at)) {
    current[p.walletType] = p.actualMinor;
    const last = rows[rows.length - 1];
    if (last && last.at === p.at) Object.assign(last, current);
    else rows.push({ at: p.at, ...current });
  }
  if (rows.length) rows.push({ ...rows[rows.length - 1]!, at: to });
  return { rows, wallets };
}

export function BalanceChart({ currency }: { currency: string }) {
  const q = useDeskQuery('balances.history', { currency }, { refreshOn: ['balances.updated'] });
  if (q.loading) return <Loading what="balance history" />;
  if (q.error && !q.data) return <ErrorBanner error={q.error} title="Could not read the balance history" />;
  if (!q.data) return null;
  const { rows, wallets } = toRows(q.data.points, q.data.to);
  if (rows.length === 0) return <EmptyState title={`No ${currency} history in the last 7 days`} />;
  // Plotting only: minor units scaled for the axis; labels use exact decimal formatting.
  const scale = 10 ** currencyExponent(currency);
  const fmt = (minor: number) => displayMinor(Math.round(minor), currency);
  return (
    <figure className="chart" aria-label={`${currency} actual balance per wallet over the last 7 days`}>
      <ResponsiveContainer width="100%" height={260}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#eef0f3" />
          <XAxis
            dataKey="at"
            type="number"
            scale="time"
            domain={['dataMin', 'dataMax']}
            tickFormatter={(v: number) => new Date(v).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}
          />
          <YAxis width={110} tickFormatter={(v: number) => (v / scale).toLocaleString()} />
          <Tooltip labelFormatter={(v) => new Date(Number(v)).toLocaleString()} formatter={(v) => fmt(Number(v))} />
          <Legend />
          {wallets.map((w, i) => (
            <Line key={w} type="stepAfter" dataKey={w} name={w} stroke={COLORS[i % COLORS.length]} dot={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <figcaption className="as-of">Actual balance per wallet ({currency}), last 7 days.</figcaption>
    </figure>
  );
}
