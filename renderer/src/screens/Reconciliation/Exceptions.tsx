// The exceptions queue: filters (kind with counts, currency, dates, text, resolved), a virtualised table,
// and the selected collection's detail beside it.
import { useMemo, useState } from 'react';
import type { ExceptionRow } from '../../../../main/reconcile/types.shared.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery, usePagedQuery, useSessionState } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading, Money, Table, type ColumnDef } from '../../ui/index.js';
import { dayEnd, dayStart, shortTime } from '../../ui/dates.js';
import { EXCEPTION_KINDS, kindBadgeClass, kindLabel } from './labels.js';
import { Detail } from './Detail.js';
import { StatusBadge } from '../../ui/StatusBadge.js';

const PAGE = 200;

interface QueueFilters {
  kind: string;
  currency: string;
  from: string;
  to: string;
  text: string;
  includeResolved: boolean;
}
const NO_FILTERS: QueueFilters = { kind: '', currency: '', from: '', to: '', text: '', includeResolved: false };

const columns: ColumnDef<ExceptionRow, unknown>[] = [
  {
    id: 'reference',
    header: 'Reference',
    accessorKey: 'merchantReference',
    cell: (c) => <span className="mono">{c.row.original.merchantReference}</span>,
  },
  { id: 'created', header: 'Created', accessorKey: 'createdAt', cell: (c) => shortTime(c.row.original.createdAt) },
  {
    id: 'amount',
    header: 'Amount',
    accessorKey: 'amountMinor',
    meta: { className: 'num' },
    cell: (c) => <Money minor={c.row.original.amountMinor} currency={c.row.original.currency} />,
  },
  {
    id: 'status',
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <StatusBadge status={c.row.original.status} />,
  },
  {
    id: 'kinds',
    header: 'Exceptions',
    enableSorting: false,
    cell: (c) => {
      const r = c.row.original;
      const shown = r.openKinds.length ? r.openKinds : r.kinds;
      return (
        <span className="kinds">
          {shown.map((k) => (
            <span key={k} className={r.openKinds.length ? kindBadgeClass(k) : 'badge'}>
              {kindLabel(k)}
            </span>
          ))}
          {r.resolvedByEventId !== null && <span className="badge ok">Resolved</span>}
        </span>
      );
    },
  },
];

export function Exceptions({ onChanged }: { onChanged: () => void }) {
  // Kept in the session: a full reconciliation re-reads the queue, and a reload of the window, without
  // losing what the person was looking at.
  const [filters, setFilters] = useSessionState<QueueFilters>('reconciliation.exceptions.filters', NO_FILTERS);
  const { kind, currency, from, to, text, includeResolved } = filters;
  const set =
    <K extends keyof QueueFilters>(k: K) =>
    (v: QueueFilters[K]) =>
      setFilters((f) => ({ ...f, [k]: v }));
  const [setKind, setCurrency, setFrom, setTo, setText, setIncludeResolved] = [
    set('kind'),
    set('currency'),
    set('from'),
    set('to'),
    set('text'),
    set('includeResolved'),
  ];
  const [selected, setSelected] = useState<number | null>(null);
  const currencies = useDeskQuery(
    'reconcile.currencies',
    {},
    { refreshOn: ['collections.updated', 'balances.updated'] },
  );

  const request = useMemo(() => {
    const r: RequestOf<'reconcile.exceptions'> = { sort: 'newest' };
    if (kind) r.kind = kind as NonNullable<RequestOf<'reconcile.exceptions'>['kind']>;
    if (currency) r.currency = currency;
    const f = dayStart(from);
    const t = dayEnd(to);
    if (f !== undefined) r.from = f;
    if (t !== undefined) r.to = t;
    if (text.trim()) r.text = text.trim();
    if (includeResolved) r.includeResolved = true;
    return r;
  }, [kind, currency, from, to, text, includeResolved]);
  // Server-side pages, like Collections: the table asks for the next page as it nears the end.
  // 'orphans.updated': the kind filter counts the open orphans too.
  const q = usePagedQuery<'reconcile.exceptions', ExceptionRow>('reconcile.exceptions', request, PAGE, {
    refreshOn: ['callbacks.ingested', 'collections.updated', 'orphans.updated'],
  });
  const rows = q.rows;
  const counts = q.extra?.countsByKind ?? {};
  const badRange = from && to && (dayStart(from) ?? 0) >= (dayEnd(to) ?? 0);

  const changed = () => {
    q.refresh();
    onChanged();
  };

  return (
    <div className="split">
      <section aria-labelledby="queue-title">
        <h2 id="queue-title">Exceptions queue</h2>
        <form className="filters" aria-label="Exception filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Kind
            <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value)}>
              <option value="">All kinds</option>
              {EXCEPTION_KINDS.map((k) => (
                <option key={k} value={k}>
                  {kindLabel(k)} ({counts[k] ?? 0})
                </option>
              ))}
            </select>
          </label>
          <label>
            Currency
            <select aria-label="Currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
              <option value="">All</option>
              {[...new Set([...(currencies.data ?? []), ...(currency ? [currency] : [])])].sort().map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
          <label>
            From
            <input
              aria-label="From"
              type="date"
              value={from}
              onChange={(e) => setFrom(e.target.value)}
              aria-invalid={badRange ? true : undefined}
            />
          </label>
          <label>
            To
            <input
              aria-label="To"
              type="date"
              value={to}
              onChange={(e) => setTo(e.target.value)}
              aria-invalid={badRange ? true : undefined}
            />
          </label>
          <label>
            Search
            <input
              aria-label="Search"
              type="search"
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Reference or customer"
            />
          </label>
          <label className="check">
            <input type="checkbox" checked={includeResolved} onChange={(e) => setIncludeResolved(e.target.checked)} />
            Show resolved
          </label>
        </form>
        {badRange && (
          <p className="field-error" role="alert">
            To must be on or after From.
          </p>
        )}
        <ErrorBanner
          error={q.error}
          title="Could not load the exceptions"
          action={<button onClick={q.refresh}>Retry</button>}
        />
        {q.total === undefined && q.busy && <Loading what="exceptions" />}
        {q.total !== undefined && (
          <>
            <p className="as-of" aria-live="polite" data-testid="exceptions-count">
              {q.total === 0
                ? 'No exceptions match.'
                : `${q.total.toLocaleString()} exception${q.total === 1 ? '' : 's'}${rows.length < q.total ? ` (${rows.length.toLocaleString()} loaded; scroll for more)` : ''}.`}
              {q.total > 0 && ' Select a row (Enter) to see every source side by side.'}
            </p>
            <Table
              label="Exceptions"
              columns={columns}
              data={rows}
              height={420}
              getRowId={(r) => String(r.collectionId)}
              onRowClick={(r) => setSelected(r.collectionId)}
              onNearEnd={q.more}
              empty={
                includeResolved || kind || currency || from || to || text ? (
                  <EmptyState title="No exceptions match these filters">Clear a filter to see more.</EmptyState>
                ) : (
                  <EmptyState title="No open exceptions">Every source agrees for every collection so far.</EmptyState>
                )
              }
            />
          </>
        )}
      </section>
      {selected !== null && (
        <section aria-labelledby="detail-title" className="panel">
          <Detail key={selected} collectionId={selected} onResolved={changed} onClose={() => setSelected(null)} />
        </section>
      )}
    </div>
  );
}
