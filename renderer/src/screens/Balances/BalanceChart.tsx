import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { displayMinor, formatMinor } from '../../../../main/money/amount.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading } from '../../ui/index.js';
import { groupDigits } from '../../ui/format.js';
import { walletLabel } from './labels.js';
import { chartDomain, dayTicks, signedChange, tickFormatter, toRows, yTicks } from './scale.js';
import { formatDateTime } from '../../ui/format.js';

const COLORS: Record<string, string> = { MERCHANT_COLLECTION: '#1f5fbf', MERCHANT_PAYOUT: '#17804a' };
const OTHER_COLORS = ['#9a6200', '#8a3ab9'];

const dateTime = (v: number) => formatDateTime(v);

export function BalanceChart({ currency }: { currency: string }) {
  const q = useDeskQuery('balances.history', { currency }, { refreshOn: ['balances.updated'] });
  if (q.loading) return <Loading what="balance history" />;
  if (q.error && !q.data) return <ErrorBanner error={q.error} title="Could not read the balance history" />;
  if (!q.data) return null;
  const { from, to } = q.data;
  const { rows, wallets } = toRows(q.data.points, to);
  if (rows.length === 0) return <EmptyState title={`No ${currency} history in the last 7 days`} />;
  const startsLate = rows[0]!.at > from;
  const [start, end] = chartDomain(from, to, rows[0]!.at);
  const xTicks = dayTicks(start, end);
  return (
    <figure className="chart" aria-label={`${currency} actual balance per wallet over the last 7 days`}>
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
              {walletLabel(w)}
              <span className="chart-stats">
                now <strong>{displayMinor(now, currency)}</strong> · change{' '}
                <strong>{signedChange(now - firstValue, currency)}</strong> · low{' '}
                {groupDigits(formatMinor(lo, currency))} · high {groupDigits(formatMinor(hi, currency))}
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
                  tickFormatter={(v: number) =>
                    `${new Date(v).toLocaleDateString(undefined, { weekday: 'short' })} ${new Date(v).getDate()}`
                  }
                />
                <YAxis
                  width={96}
                  domain={[ticks[0]!, ticks[ticks.length - 1]!]}
                  ticks={ticks}
                  allowDecimals={false}
                  allowDataOverflow
                  tick={{ fill: '#4a5261', fontSize: 12 }}
                  tickFormatter={tickFormatter(ticks, currency)}
                />
                <Tooltip
                  labelFormatter={(v) => dateTime(Number(v))}
                  formatter={(v) => (Number.isSafeInteger(Number(v)) ? displayMinor(Number(v), currency) : String(v))}
                />
                <Line
                  type="stepAfter"
                  dataKey={w}
                  name={walletLabel(w)}
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
        Actual balance per wallet ({currency}), last 7 days; each wallet on its own scale.
        {startsLate && (
          <>
            {' '}
            <strong data-testid="history-starts">History starts {dateTime(rows[0]!.at)}</strong>, when this desk first
            read the balances; the week fills in as they are polled.
          </>
        )}
      </figcaption>
    </figure>
  );
}
