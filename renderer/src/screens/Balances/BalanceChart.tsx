import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { currencyExponent, displayMinor, formatMinor } from '../../../../main/money/index.js';
import type { BalancePointView } from '../../../../main/ipc/contract/balances.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading } from '../../ui/index.js';
import { groupDigits } from '../../ui/format.js';
import { WALLET_LABEL, walletLabel } from './labels.js';

const COLORS: Record<string, string> = { MERCHANT_COLLECTION: '#1f5fbf', MERCHANT_PAYOUT: '#17804a' };
const OTHER_COLORS = ['#9a6200', '#8a3ab9'];
const DAY = 86_400_000;

interface Row {
  at: number;
  [walletType: string]: number;
}

/** Step series: at every change, every wallet's actual balance as of then (carried forward). */
function toRows(points: BalancePointView[], to: number): { rows: Row[]; wallets: string[] } {
  const known = Object.keys(WALLET_LABEL);
  const wallets = [...new Set(points.map((p) => p.walletType))].sort((a, b) => rank(a, known) - rank(b, known) || a.localeCompare(b));
  const current: Record<string, number> = {};
  const rows: Row[] = [];
  for (const p of [...points].sort((a, b) => a.at - b.at)) {
    current[p.walletType] = p.actualMinor;
    const last = rows[rows.length - 1];
    if (last && last.at === p.at) Object.assign(last, current);
    else rows.push({ at: p.at, ...current });
  }
  if (rows.length && rows[rows.length - 1]!.at < to) rows.push({ ...rows[rows.length - 1]!, at: to });
  return { rows, wallets };
}

function rank(w: string, known: string[]): number {
  const i = known.indexOf(w);
  return i < 0 ? known.length : i;
}

/**
 * Y axis for one wallet: round ticks (1, 2 or 5 times a power of ten, in minor units, so whole units
 * once the step reaches one unit) around the wallet's own low and high, so a change of a few percent
 * is visible instead of a flat line far above zero. Plotting only: the amounts stay integers.
 */
export function yTicks(lo: number, hi: number, exponent: number): number[] {
  const unit = 10 ** exponent;
  if (hi < lo) [lo, hi] = [hi, lo];
  const span = hi - lo || Math.max(unit, Math.round(Math.abs(hi) / 50));
  const raw = span / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag);
  let first = Math.floor(lo / step) * step;
  let last = Math.ceil(hi / step) * step;
  if (first === last) {
    first -= step;
    last += step;
  }
  const ticks: number[] = [];
  for (let t = first; t <= last; t += step) ticks.push(t);
  return ticks;
}

/** Local midnights inside [from, to], for day ticks on the time axis. */
function dayTicks(from: number, to: number): number[] {
  const d = new Date(from);
  d.setHours(24, 0, 0, 0);
  const ticks: number[] = [];
  for (let t = d.getTime(); t <= to; t += DAY) {
    const m = new Date(t);
    m.setHours(0, 0, 0, 0); // daylight saving: stay on midnight
    ticks.push(m.getTime());
  }
  return ticks;
}

/** "+1,234.50" / "-186.09" / "0.00": the change, without the code (the "now" amount beside it has it). */
function signed(minor: number, currency: string): string {
  return (minor > 0 ? '+' : '') + groupDigits(formatMinor(minor, currency));
}

const dateTime = (v: number) => new Date(v).toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export function BalanceChart({ currency }: { currency: string }) {
  const q = useDeskQuery('balances.history', { currency }, { refreshOn: ['balances.updated'] });
  if (q.loading) return <Loading what="balance history" />;
  if (q.error && !q.data) return <ErrorBanner error={q.error} title="Could not read the balance history" />;
  if (!q.data) return null;
  const { from, to } = q.data;
  const { rows, wallets } = toRows(q.data.points, to);
  if (rows.length === 0) return <EmptyState title={`No ${currency} history in the last 7 days`} />;
  const exponent = currencyExponent(currency);
  const unit = 10 ** exponent;
  const xTicks = dayTicks(from, to);
  const startsLate = rows[0]!.at > from;
  return (
    <figure className="chart" aria-label={`${currency} actual balance per wallet over the last 7 days`}>
      {wallets.map((w, i) => {
        const values = rows.map((r) => r[w]).filter((v): v is number => typeof v === 'number');
        const lo = Math.min(...values);
        const hi = Math.max(...values);
        const firstValue = values[0]!;
        const now = values[values.length - 1]!;
        const ticks = yTicks(lo, hi, exponent);
        const whole = ticks.every((t) => t % unit === 0);
        const tick = (v: number) => {
          const text = groupDigits(formatMinor(v, currency));
          return whole && exponent > 0 ? text.slice(0, -(exponent + 1)) : text;
        };
        const color = COLORS[w] ?? OTHER_COLORS[i % OTHER_COLORS.length]!;
        return (
          <div key={w} className="chart-wallet">
            <h3 className="chart-title">
              <span className="swatch" style={{ background: color }} aria-hidden="true" />
              {walletLabel(w)}
              <span className="chart-stats">
                now <strong>{displayMinor(now, currency)}</strong> · change <strong>{signed(now - firstValue, currency)}</strong> · low{' '}
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
                  domain={[from, to]}
                  ticks={xTicks}
                  tick={{ fill: '#4a5261', fontSize: 12 }}
                  tickFormatter={(v: number) => `${new Date(v).toLocaleDateString(undefined, { weekday: 'short' })} ${new Date(v).getDate()}`}
                />
                <YAxis
                  width={96}
                  domain={[ticks[0]!, ticks[ticks.length - 1]!]}
                  ticks={ticks}
                  allowDecimals={false}
                  allowDataOverflow
                  tick={{ fill: '#4a5261', fontSize: 12 }}
                  tickFormatter={tick}
                />
                <Tooltip
                  labelFormatter={(v) => dateTime(Number(v))}
                  formatter={(v) => (Number.isSafeInteger(Number(v)) ? displayMinor(Number(v), currency) : String(v))}
                />
                <Line type="stepAfter" dataKey={w} name={walletLabel(w)} stroke={color} strokeWidth={2} dot={rows.length <= 2 ? { r: 3, fill: color } : false} isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </div>
        );
      })}
      <figcaption className="as-of">
        Actual balance per wallet ({currency}), last 7 days; each wallet on its own scale.
        {startsLate && ` History starts ${dateTime(rows[0]!.at)}.`}
      </figcaption>
    </figure>
  );
}
