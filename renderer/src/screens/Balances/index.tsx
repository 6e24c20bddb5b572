import { lazy, Suspense, useState } from 'react';
import type { WalletBalanceView } from '../../../../main/ipc/contract/balances.js';
import { useAppStatusSelect, useDeskAction, useDeskQuery } from '../../hooks.js';
import { AsOf, EmptyState, ErrorBanner, Loading, Money, Screen, WarningBanner } from '../../ui/index.js';
import { walletLabel } from './labels.js';
import { formatDateTime } from '../../ui/format.js';

// recharts is loaded only once there is a history to draw: the balance rows do not wait for it.
const BalanceChart = lazy(() => import('./BalanceChart.js').then((m) => ({ default: m.BalanceChart })));

const AMOUNTS = [
  ['Available', 'availableMinor'],
  ['Uncleared', 'unclearedMinor'],
  ['Reserve', 'reserveMinor'],
  ['Actual', 'actualMinor'],
] as const;

function byCurrency(rows: WalletBalanceView[]): [string, WalletBalanceView[]][] {
  const m = new Map<string, WalletBalanceView[]>();
  for (const r of rows) m.set(r.currency, [...(m.get(r.currency) ?? []), r]);
  return [...m.entries()];
}

export function BalancesScreen() {
  const q = useDeskQuery('balances.latest', {}, { refreshOn: ['balances.updated'] });
  const refresh = useDeskAction('balances.refresh');
  const [chartCurrency, setChartCurrency] = useState<string>();
  const data = q.data;
  const starting = useStartingMessage();
  const groups = data ? byCurrency(data.rows) : [];
  const currencies = groups.map(([c]) => c);
  const shownChart = chartCurrency && currencies.includes(chartCurrency) ? chartCurrency : currencies[0];

  const onRefresh = async () => {
    await refresh.run({});
    await q.reload();
  };

  return (
    <Screen
      title="Balances"
      actions={
        <>
          {data && <AsOf at={data.asOf} stale={data.stale} prefix="As of" />}
          <button type="button" onClick={() => void onRefresh()} disabled={refresh.pending}>
            {refresh.pending ? 'Refreshing…' : 'Refresh'}
          </button>
        </>
      }
    >
      <ErrorBanner error={q.error} title="Could not read the cached balances" />
      <ErrorBanner error={refresh.error} title="Refresh failed" />
      {data?.stale && data.rows.length > 0 && (
        <WarningBanner>
          <span data-testid="stale-notice">
            <strong>Stale:</strong> these are the cached balances
            {data.asOf ? ` from ${formatDateTime(data.asOf)}` : ''}.
            {data.lastError
              ? ` The last update failed: ${data.lastError.message}`
              : ' They have not been updated recently.'}
          </span>
        </WarningBanner>
      )}
      {q.loading && <Loading what="balances" />}
      {data && data.rows.length === 0 && (
        <EmptyState title="No balances yet">
          {data.lastError ? (
            <span role="alert">The service could not be asked: {data.lastError.message}</span>
          ) : starting ? (
            <span data-testid="balances-starting">{starting} Balances appear here as soon as it answers.</span>
          ) : (
            'The first update is on its way; balances appear here as soon as the service answers.'
          )}
        </EmptyState>
      )}
      {groups.length > 0 && (
        <div className="cards">
          {groups.map(([currency, rows]) => (
            <CurrencyCard key={currency} currency={currency} rows={rows} stale={data!.stale} />
          ))}
        </div>
      )}
      {currencies.length > 0 && (
        <section className="panel" aria-labelledby="history-title">
          <div className="screen-header">
            <h2 id="history-title">Balance history</h2>
            <label>
              Currency{' '}
              <select value={shownChart} onChange={(e) => setChartCurrency(e.target.value)}>
                {currencies.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
          </div>
          {shownChart && (
            <Suspense fallback={<Loading what="the chart" />}>
              <BalanceChart currency={shownChart} />
            </Suspense>
          )}
        </section>
      )}
    </Screen>
  );
}

/** "Starting the sandbox…" while the app is still connecting (its first start makes a key), else null. */
function useStartingMessage(): string | null {
  return useAppStatusSelect((s) => (s?.connection === 'starting' ? (s.message ?? 'Connecting…') : null));
}

function CurrencyCard({ currency, rows, stale }: { currency: string; rows: WalletBalanceView[]; stale: boolean }) {
  const inconsistent = rows.filter((r) => !r.consistent);
  return (
    <section
      className={stale ? 'panel stale-panel' : 'panel'}
      aria-label={`${currency} balances`}
      data-testid={`balances-${currency}`}
    >
      <h2>
        {currency} {stale && <span className="badge warn">stale</span>}
      </h2>
      {inconsistent.map((r) => (
        <div key={r.walletType} className="banner error" role="alert">
          <span>
            <strong>Does not add up:</strong> {walletLabel(r.walletType)} actual{' '}
            <Money minor={r.actualMinor} currency={currency} code={false} /> is not available + uncleared + reserve (
            <Money minor={r.availableMinor + r.unclearedMinor + r.reserveMinor} currency={currency} code={false} />
            ), a difference of{' '}
            <Money
              minor={r.actualMinor - (r.availableMinor + r.unclearedMinor + r.reserveMinor)}
              currency={currency}
              code={false}
            />
            .
          </span>
        </div>
      ))}
      <table className="table wallets" aria-label={`${currency} wallets`}>
        <thead>
          <tr>
            <td />
            {rows.map((r) => (
              <th key={r.walletType} scope="col" className="num" title={r.walletType}>
                {walletLabel(r.walletType)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {AMOUNTS.map(([label, key]) => (
            <tr key={key} className={key === 'actualMinor' ? 'total' : undefined}>
              <th scope="row">{label}</th>
              {rows.map((r) => (
                <td key={r.walletType} className={key === 'actualMinor' && !r.consistent ? 'num mismatch' : 'num'}>
                  <Money minor={r[key]} currency={currency} code={false} />
                  {key === 'actualMinor' && !r.consistent && <span className="sr-only"> (does not add up)</span>}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="card-foot">
        <AsOf at={Math.max(...rows.map((r) => r.observedAt))} prefix="values since" />
      </div>
    </section>
  );
}
