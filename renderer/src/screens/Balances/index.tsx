import { lazy, Suspense, useState, type ReactNode } from 'react';
import type { WalletBalanceView } from '../../../../main/ipc/contract/balances.js';
import { useAppStatusSelect, useDeskAction, useDeskQuery } from '../../hooks.js';
import { AsOf, EmptyState, ErrorBanner, Loading, Money, Screen, WarningBanner } from '../../ui/index.js';
import { walletLabel } from './labels.js';
import { useWords } from '../../words/index.js';
import { pollErrorWords } from '../../../../main/poller/poll-words.shared.js';
import type { MessageId } from '../../../../main/words/words.shared.js';

// recharts is loaded only once there is a history to draw: the balance rows do not wait for it.
const BalanceChart = lazy(() => import('./BalanceChart.js').then((m) => ({ default: m.BalanceChart })));

const AMOUNTS: readonly (readonly [MessageId, 'availableMinor' | 'unclearedMinor' | 'reserveMinor' | 'actualMinor'])[] =
  [
    ['balances.row.available', 'availableMinor'],
    ['balances.row.uncleared', 'unclearedMinor'],
    ['balances.row.reserve', 'reserveMinor'],
    ['balances.row.actual', 'actualMinor'],
  ];

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

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
  const { t, rich, say } = useWords();
  const groups = data ? byCurrency(data.rows) : [];
  const currencies = groups.map(([c]) => c);
  const shownChart = chartCurrency && currencies.includes(chartCurrency) ? chartCurrency : currencies[0];

  const onRefresh = async () => {
    await refresh.run({});
    await q.reload();
  };

  return (
    <Screen
      title={t('app.screen.balances')}
      actions={
        <>
          {data && <AsOf at={data.asOf} stale={data.stale} prefix={t('balances.asOf')} />}
          <button type="button" onClick={() => void onRefresh()} disabled={refresh.pending}>
            {t(refresh.pending ? 'balances.refreshing' : 'balances.refresh')}
          </button>
        </>
      }
    >
      <ErrorBanner error={q.error} title={t('balances.readFailed')} />
      <ErrorBanner error={refresh.error} title={t('balances.refreshFailed')} />
      {data?.stale && data.rows.length > 0 && (
        <WarningBanner>
          <span data-testid="stale-notice">
            {data.asOf ? rich('balances.staleFrom', { asOfAt: data.asOf, b }) : rich('balances.stale', { b })}{' '}
            {data.lastError
              ? t('balances.lastFailed', { reason: say(pollErrorWords(data.lastError)) })
              : t('balances.notRecent')}
          </span>
        </WarningBanner>
      )}
      {q.loading && <Loading text={t('balances.loading')} />}
      {data && data.rows.length === 0 && (
        <EmptyState title={t('balances.none')}>
          {data.lastError ? (
            <span role="alert">{t('balances.couldNotAsk', { reason: say(pollErrorWords(data.lastError)) })}</span>
          ) : starting ? (
            <span data-testid="balances-starting">{t('balances.startingThen', { starting })}</span>
          ) : (
            t('balances.firstOnItsWay')
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
            <h2 id="history-title">{t('balances.history')}</h2>
            <label>
              {t('balances.currency')}{' '}
              <select value={shownChart} onChange={(e) => setChartCurrency(e.target.value)}>
                {currencies.map((c) => (
                  <option key={c} translate="no">
                    {c}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {shownChart && (
            <Suspense fallback={<Loading text={t('balances.loadingChart')} />}>
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
  const { t, say } = useWords();
  const s = useAppStatusSelect((x) => (x?.connection === 'starting' ? { message: x.message, words: x.words } : null));
  if (!s) return null;
  return s.message ? say(s.words, s.message) : t('status.connecting');
}

function CurrencyCard({ currency, rows, stale }: { currency: string; rows: WalletBalanceView[]; stale: boolean }) {
  const { t, rich } = useWords();
  const inconsistent = rows.filter((r) => !r.consistent);
  return (
    <section
      className={stale ? 'panel stale-panel' : 'panel'}
      aria-label={t('balances.card', { currency })}
      data-testid={`balances-${currency}`}
    >
      <h2>
        <span translate="no">{currency}</span> {stale && <span className="badge warn">{t('balances.staleBadge')}</span>}
      </h2>
      {inconsistent.map((r) => (
        <div key={r.walletType} className="banner error" role="alert">
          <span>
            {rich('balances.doesNotAddUp', {
              b,
              wallet: walletLabel(t, r.walletType),
              actual: <Money minor={r.actualMinor} currency={currency} code={false} />,
              sum: (
                <Money minor={r.availableMinor + r.unclearedMinor + r.reserveMinor} currency={currency} code={false} />
              ),
              difference: (
                <Money
                  minor={r.actualMinor - (r.availableMinor + r.unclearedMinor + r.reserveMinor)}
                  currency={currency}
                  code={false}
                />
              ),
            })}
          </span>
        </div>
      ))}
      <table className="table wallets" aria-label={t('balances.wallets', { currency })}>
        <thead>
          <tr>
            <td />
            {rows.map((r) => (
              <th
                key={r.walletType}
                scope="col"
                className="num"
                title={t('balances.walletCode', { code: r.walletType })}
              >
                {walletLabel(t, r.walletType)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {AMOUNTS.map(([label, key]) => (
            <tr key={key} className={key === 'actualMinor' ? 'total' : undefined}>
              <th scope="row">{t(label)}</th>
              {rows.map((r) => (
                <td key={r.walletType} className={key === 'actualMinor' && !r.consistent ? 'num mismatch' : 'num'}>
                  <Money minor={r[key]} currency={currency} code={false} />
                  {key === 'actualMinor' && !r.consistent && (
                    <span className="sr-only"> {t('balances.notAddingUp')}</span>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="card-foot">
        <AsOf at={Math.max(...rows.map((r) => r.observedAt))} prefix={t('balances.valuesSince')} />
      </div>
    </section>
  );
}
