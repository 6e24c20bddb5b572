// Payment options: the service's collection options as this desk last read them (the poller, or Refresh),
// marked stale when the last update failed, filterable by currency, transaction type and method.
import { useMemo, useState } from 'react';
import type { PaymentOptionView } from '../../../../main/ipc/contract/options.js';
import { useDeskAction, useDeskQuery } from '../../hooks.js';
import { methodLabel } from '../../ui/status.js';
import { formatDateTime } from '../../ui/format.js';
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

function DailyUse({ o }: { o: PaymentOptionView }) {
  if (o.collectedTodayMinor === null) return <span className="as-of">—</span>;
  const pct = o.maxDailyMinor > 0 ? Math.min(100, Math.round((o.collectedTodayMinor / o.maxDailyMinor) * 100)) : 0;
  return (
    <div
      className="meter"
      role="group"
      title={`${pct}% of the daily maximum`}
      aria-label={`collected today: ${pct}% of the daily maximum`}
    >
      <span>
        <Money minor={o.collectedTodayMinor} currency={o.currency} code={false} /> ({pct}%)
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

const columns: ColumnDef<PaymentOptionView>[] = [
  {
    id: 'provider',
    header: 'Payment option',
    accessorFn: (o) => o.providerName,
    meta: { className: 'wrap name' },
    cell: ({ row: { original: o } }) => <span title={o.providerCode}>{o.providerName}</span>,
  },
  { id: 'method', header: 'Method', accessorFn: (o) => methodLabel(o.transactionMethod) },
  { id: 'type', header: 'Type', accessorFn: (o) => o.transactionType },
  { id: 'currency', header: 'Currency', accessorFn: (o) => o.currency },
  {
    id: 'min',
    header: 'Min',
    accessorFn: (o) => o.minMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.minMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'max',
    header: 'Max',
    accessorFn: (o) => o.maxMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.maxMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'daily',
    header: 'Daily max',
    accessorFn: (o) => o.maxDailyMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: o } }) => <Money minor={o.maxDailyMinor} currency={o.currency} code={false} />,
  },
  {
    id: 'today',
    header: 'Collected today',
    meta: { className: 'wrap' },
    enableSorting: false,
    cell: ({ row: { original: o } }) => <DailyUse o={o} />,
  },
  {
    id: 'active',
    header: 'Active',
    accessorFn: (o) => (o.isActive ? 1 : 0),
    cell: ({ row: { original: o } }) =>
      o.isActive ? <span className="badge ok">Active</span> : <span className="badge off">Inactive</span>,
  },
  {
    id: 'prefixes',
    header: 'Prefixes',
    enableSorting: false,
    meta: { className: 'wrap' },
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

  return (
    <Screen
      title="Payment options"
      actions={
        <>
          {data && <AsOf at={data.asOf} stale={data.stale} prefix="As of" />}
          <button type="button" disabled={refresh.pending} onClick={() => void refresh.run({}).then(() => q.reload())}>
            {refresh.pending ? 'Refreshing…' : 'Refresh'}
          </button>
        </>
      }
    >
      <ErrorBanner error={q.error} title="Could not read the cached payment options" />
      <ErrorBanner error={refresh.error} title="Refresh failed" />
      {data?.stale && data.asOf && (
        <WarningBanner>
          <strong>Stale:</strong> cached list from {formatDateTime(data.asOf)}.
          {data.lastError ? ` The last update failed: ${data.lastError.message}` : ''}
        </WarningBanner>
      )}
      <OptionFilters
        values={filters}
        facets={data?.facets ?? { currencies: [], transactionTypes: [], methods: [] }}
        onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))}
      />
      {q.loading && <Loading what="payment options" />}
      {data && data.asOf === null && data.rows.length === 0 ? (
        <EmptyState title="No payment options yet">
          {data.lastError ? (
            <span role="alert">The service could not be asked: {data.lastError.message}</span>
          ) : (
            'The list arrives with the first update.'
          )}
        </EmptyState>
      ) : (
        data && (
          <Table
            label="Payment options"
            className="options-table"
            columns={columns}
            data={data.rows}
            getRowId={(o) => `${o.currency}/${o.transactionType}/${o.providerCode}`}
            empty="No payment option matches these filters."
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
  return (
    <div className="filters" role="group" aria-label="Filters">
      <label>
        Currency
        <select value={values.currency} onChange={(e) => onChange({ currency: e.target.value })}>
          <option value="">All</option>
          {facets.currencies.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <label>
        Transaction type
        <select value={values.transactionType} onChange={(e) => onChange({ transactionType: e.target.value })}>
          <option value="">All</option>
          {facets.transactionTypes.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <label>
        Method
        <select value={values.method} onChange={(e) => onChange({ method: e.target.value })}>
          <option value="">All</option>
          {facets.methods.map((c) => (
            <option key={c} value={c}>
              {methodLabel(c)}
            </option>
          ))}
        </select>
      </label>
      {!!(values.currency || values.transactionType || values.method) && (
        <button type="button" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
