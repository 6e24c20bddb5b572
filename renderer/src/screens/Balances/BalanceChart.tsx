import type React from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading } from '../../ui/index.js';
import { useWords } from '../../words/index.js';
import { walletLabel } from './labels.js';
import { chartDomain, dayTicks, signedChange, tickFormatter, toRows, yTicks } from './scale.js';

const COLORS: Record<string, string> = { MERCHANT_COLLECTION: '#1f5fbf', MERCHANT_PAYOUT: '#17804a' };
const OTHER_COLORS = ['#9a6200', '#8a3ab9'];

const b = (chunks: React.ReactNode[]) => <strong>{chunks}</strong>;

export function BalanceChart({ currency }: { currency: string }) {
  const q = useDeskQuery('balances.history', { currency }, { refreshOn: ['balances.updated'] });
  const { t, rich, f } = useWords();
  if (q.loading) return <Loading text={t('balances.chart.loading')} />;
  if (q.error && !q.data) return <ErrorBanner error={q.error} title={t('balances.chart.readFailed')} />;
  if (!q.data) return null;
  const { from, to } = q.data;
  const { rows, wallets } = toRows(q.data.points, to);
  if (rows.length === 0) return <EmptyState title={t('balances.chart.none', { currency })} />;
  const startsLate = rows[0]!.at > from;
  const [start, end] = chartDomain(from, to, rows[0]!.at);
  const xTicks = dayTicks(start, end);
  return (
    <figure className="chart" aria-label={t('balances.chart.label', { currency })}>
      {wallets.map((w, i) => {
        const values = rows.map((r) => r[w]).filter((v): v is number => typeof v === 'number');
        const lo = Math.min(...values);
        const hi = Math.max(...values);
        const firstValue = values[0]!;
        const now = values[values.length - 1]!;
        const ticks = yTicks(lo, hi, currency);
        const color = COLORS[w] ?? OTHER_COLORS[i % OTHER_COLORS.length]!;
        return (
          <div key={w} className="chart-wallet">
            <h3 className="chart-title">
              <span className="swatch" style={{ background: color }} aria-hidden="true" />
              {walletLabel(t, w)}
              <span className="chart-stats">
                {rich('balances.chart.stats', {
                  now: f.amount(now, currency),
                  change: signedChange(now - firstValue, currency, f),
                  low: f.amount(lo, currency, { code: false }),
                  high: f.amount(hi, currency, { code: false }),
                  b,
                })}
              </span>
            </h3>
            <ResponsiveContainer width="100%" height={150}>
              <LineChart data={rows} syncId={`balances-${currency}`} margin={{ top: 6, right: 24, bottom: 0, left: 8 }}>
                <CartesianGrid stroke="#e6e9ee" />
                <XAxis
                  dataKey="at"
                  type="number"
                  scale="time"
                  domain={[start, end]}
                  ticks={xTicks}
                  tick={{ fill: '#4a5261', fontSize: 12 }}
                  tickFormatter={(v: number) => f.axisDay(v)}
                />
                <YAxis
                  width={96}
                  domain={[ticks[0]!, ticks[ticks.length - 1]!]}
                  ticks={ticks}
                  allowDecimals={false}
                  allowDataOverflow
                  tick={{ fill: '#4a5261', fontSize: 12 }}
                  tickFormatter={tickFormatter(ticks, currency, f)}
                />
                <Tooltip
                  labelFormatter={(v) => f.dateTime(Number(v))}
                  formatter={(v) => (Number.isSafeInteger(Number(v)) ? f.amount(Number(v), currency) : String(v))}
                />
                <Line
                  type="stepAfter"
                  dataKey={w}
                  name={walletLabel(t, w)}
                  stroke={color}
                  strokeWidth={2}
                  dot={rows.length <= 2 ? { r: 3, fill: color } : false}
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </div>
        );
      })}
      <figcaption className="as-of">
        {t('balances.chart.caption', { currency })}
        {startsLate && (
          <>
            {' '}
            {rich('balances.chart.startsLate', {
              firstAt: f.dateTime(rows[0]!.at),
              b: (chunks: React.ReactNode[]) => <strong data-testid="history-starts">{chunks}</strong>,
            })}
          </>
        )}
      </figcaption>
    </figure>
  );
}
