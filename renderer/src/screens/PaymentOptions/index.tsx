// Payment options: the service's collection options as this desk last read them (the poller, or Refresh),
// marked stale when the last update failed, filterable by currency, transaction type and method.
import { useMemo, useState, type ReactNode } from 'react';
import type { PaymentOptionView } from '../../../../main/ipc/contract/options.js';
import { useDeskAction, useDeskQuery } from '../../hooks.js';
import { methodLabel } from '../../ui/status.js';
import { useWords, type Say } from '../../words/index.js';
import { pollErrorWords } from '../../../../main/poller/poll-words.shared.js';
import {
  AsOf,
  EmptyState,
  ErrorBanner,
  Loading,
  Money,
  Screen,
  Table,
  WarningBanner,
  type ColumnDef,
} from '../../ui/index.js';

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

function DailyUse({ o }: { o: PaymentOptionView }) {
  const { t, f } = useWords();
  if (o.collectedTodayMinor === null) return <span className="as-of">—</span>;
  const pct = o.maxDailyMinor > 0 ? Math.min(100, Math.round((o.collectedTodayMinor / o.maxDailyMinor) * 100)) : 0;
  return (
    <div
      className="meter"
      role="group"
      title={t('options.dailyUse', { pct: pct / 100 })}
      aria-label={t('options.dailyUseLabel', { pct: pct / 100 })}
    >
      <span>
        <Money minor={o.collectedTodayMinor} currency={o.currency} code={false} /> ({f.percent(pct / 100)})
      </span>
      <div className="meter-track" aria-hidden="true">
        <div
          className={pct >= 100 ? 'meter-fill full' : pct >= 80 ? 'meter-fill high' : 'meter-fill'}
          style={{ width: `${pct}%` }}
        />
      </div>
    </div>
  );
}

const columnsFor = (t: Say['t']): ColumnDef<PaymentOptionView>[] => [
  {
    id: 'provider',
    header: t('options.col.provider'),
    accessorFn: (o) => o.providerName,
    meta: { className: 'wrap name', data: true },
    cell: ({ row: { original: o } }) => <span title={o.providerCode}>{o.providerName}</span>,
  },
  { id: 'method', header: t('options.col.method'), accessorFn: (o) => methodLabel(t, o.transactionMethod) },
  { id: 'type', header: t('options.col.type'), accessorFn: (o) => o.transactionType, meta: { data: true } },
  { id: 'currency', header: t('options.col.currency'), accessorFn: (o) => o.currency, meta: { data: true } },
  {
    id: 'min',
    header: t('options.col.min'),
    accessorFn: (o) => o.minMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.minMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'max',
    header: t('options.col.max'),
    accessorFn: (o) => o.maxMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.maxMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'daily',
    header: t('options.col.daily'),
    accessorFn: (o) => o.maxDailyMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.maxDailyMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'today',
    header: t('options.col.today'),
    meta: { className: 'wrap' },
    enableSorting: false,
    cell: ({ row: { original: o } }) => <DailyUse o={o} />,
  },
  {
    id: 'active',
    header: t('options.col.active'),
    accessorFn: (o) => (o.isActive ? 1 : 0),
    cell: ({ row: { original: o } }) =>
      o.isActive ? (
        <span className="badge ok">{t('options.active')}</span>
      ) : (
        <span className="badge off">{t('options.inactive')}</span>
      ),
  },
  {
    id: 'prefixes',
    header: t('options.col.prefixes'),
    enableSorting: false,
    meta: { className: 'wrap', data: true },
    accessorFn: (o) => o.optionPrefixes.join(' ') || '—',
    // Phone number prefixes wrap, two to a line, so the column does not push the table past the window.
    cell: ({ row: { original: o } }) =>
      o.optionPrefixes.length === 0 ? (
        '—'
      ) : (
        <span className="prefixes">
          {o.optionPrefixes.map((p) => (
            <span key={p}>{p}</span>
          ))}
        </span>
      ),
  },
];

interface OptionFilterValues {
  currency: string;
  transactionType: string;
  method: string;
}
const NO_FILTERS: OptionFilterValues = { currency: '', transactionType: '', method: '' };

export function PaymentOptionsScreen() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const { currency, transactionType, method } = filters;
  const request = useMemo(
    () => ({
      ...(currency ? { currency } : {}),
      ...(transactionType ? { transactionType } : {}),
      ...(method ? { method } : {}),
    }),
    [currency, transactionType, method],
  );
  // "Collected today" is the team's on a team desk: another desk's charge, or its outcome, reaches this
  // desk as collections.updated (a pulled batch), and the card options' totals are read again then.
  const q = useDeskQuery('options.list', request, {
    refreshOn: ['options.updated', 'collections.updated', 'callbacks.ingested'],
  });
  const refresh = useDeskAction('options.refresh');
  const data = q.data;
  const { t, rich, say } = useWords();
  const columns = useMemo(() => columnsFor(t), [t]);

  return (
    <Screen
      title={t('app.screen.paymentOptions')}
      actions={
        <>
          {data && <AsOf at={data.asOf} stale={data.stale} prefix={t('balances.asOf')} />}
          <button type="button" disabled={refresh.pending} onClick={() => void refresh.run({}).then(() => q.reload())}>
            {t(refresh.pending ? 'balances.refreshing' : 'balances.refresh')}
          </button>
        </>
      }
    >
      <ErrorBanner error={q.error} title={t('options.readFailed')} />
      <ErrorBanner error={refresh.error} title={t('balances.refreshFailed')} />
      {data?.stale && data.asOf && (
        <WarningBanner>
          {rich('options.staleFrom', { asOfAt: data.asOf, b })}
          {data.lastError ? ` ${t('balances.lastFailed', { reason: say(pollErrorWords(data.lastError)) })}` : ''}
        </WarningBanner>
      )}
      <OptionFilters
        values={filters}
        facets={data?.facets ?? { currencies: [], transactionTypes: [], methods: [] }}
        onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))}
      />
      {q.loading && <Loading text={t('options.loading')} />}
      {data && data.asOf === null && data.rows.length === 0 ? (
        <EmptyState title={t('options.none')}>
          {data.lastError ? (
            <span role="alert">{t('balances.couldNotAsk', { reason: say(pollErrorWords(data.lastError)) })}</span>
          ) : (
            t('options.arrives')
          )}
        </EmptyState>
      ) : (
        data && (
          <Table
            label={t('options.table')}
            className="options-table"
            columns={columns}
            data={data.rows}
            getRowId={(o) => `${o.currency}/${o.transactionType}/${o.providerCode}`}
            empty={t('options.noMatch')}
            height={560}
          />
        )
      )}
    </Screen>
  );
}

/** Currency, transaction type and method, each from what the cached list offers; Clear filters once any is set. */
function OptionFilters({
  values,
  facets,
  onChange,
}: {
  values: OptionFilterValues;
  facets: { currencies: string[]; transactionTypes: string[]; methods: string[] };
  onChange: (patch: Partial<OptionFilterValues>) => void;
}) {
  const { t } = useWords();
  return (
    <div className="filters" role="group" aria-label={t('options.filters')}>
      <label>
        {t('options.filter.currency')}
        <select value={values.currency} onChange={(e) => onChange({ currency: e.target.value })}>
          <option value="">{t('options.filter.all')}</option>
          {facets.currencies.map((c) => (
            <option key={c} translate="no">
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('options.filter.type')}
        <select value={values.transactionType} onChange={(e) => onChange({ transactionType: e.target.value })}>
          <option value="">{t('options.filter.all')}</option>
          {facets.transactionTypes.map((c) => (
            <option key={c} translate="no">
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('options.filter.method')}
        <select value={values.method} onChange={(e) => onChange({ method: e.target.value })}>
          <option value="">{t('options.filter.all')}</option>
          {facets.methods.map((c) => (
            <option key={c} value={c}>
              {methodLabel(t, c)}
            </option>
          ))}
        </select>
      </label>
      {!!(values.currency || values.transactionType || values.method) && (
        <button type="button" onClick={() => onChange(NO_FILTERS)}>
          {t('options.clearFilters')}
        </button>
      )}
    </div>
  );
}
