// Collections: every card collection with what each source said, filtered and sorted in main (server-side
// pages through collections.list, so a year of history stays fast), a virtualised table, a detail view
// with the event timeline, and the "Import callbacks" button.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { useDeskQuery, usePagedQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money, Screen, Table, type ColumnDef, type SortingState } from '../../ui/index.js';
import { Flags, SignatureBeingChecked, StatusBadge } from '../../ui/StatusBadge.js';
import { STATUS_CODES, statusLabel, type StatusCode } from '../../ui/status.js';
import { CollectionDetail } from './Detail.js';
import { useCallbackImport } from './ImportCallbacks.js';
import { SourcesAgree } from './Sources.js';
import { EMPTY_VIEW, listShows, type ListView } from './list-shows.js';
import './collections.css';
import { formatDateTime } from '../../ui/format.js';

type Status = StatusCode;
const SORTABLE = ['created_at', 'amount', 'currency', 'status', 'reference', 'customer'] as const;
type Sortable = (typeof SORTABLE)[number];
const PAGE = 200;

interface Filters {
  status: '' | Status;
  currency: string;
  from: string; // yyyy-mm-dd (local)
  to: string;
  text: string;
  flagged: boolean;
}

const NO_FILTERS: Filters = { status: '', currency: '', from: '', to: '', text: '', flagged: false };

/** Local midnight of a yyyy-mm-dd date, plus `days`. */
function dayStart(date: string, days = 0): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days).getTime();
}

const columns: ColumnDef<CollectionRow>[] = [
  {
    id: 'reference',
    header: 'Reference',
    accessorFn: (c) => c.merchantReference,
    cell: ({ row: { original: c } }) => <span className="mono">{c.merchantReference}</span>,
  },
  {
    id: 'created_at',
    header: 'Created',
    accessorFn: (c) => c.createdAt,
    cell: ({ row: { original: c } }) => (
      <time dateTime={new Date(c.createdAt).toISOString()}>{formatDateTime(c.createdAt)}</time>
    ),
  },
  {
    id: 'amount',
    // Amounts of different currencies are not comparable: main sorts them within each currency.
    header: () => <span title="Sorted within each currency: by currency, then amount">Amount</span>,
    accessorFn: (c) => c.amountMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: c } }) => <Money minor={c.amountMinor} currency={c.currency} code={false} />,
  },
  { id: 'currency', header: 'Currency', accessorFn: (c) => c.currency },
  {
    id: 'customer',
    header: 'Customer',
    accessorFn: (c) => c.customerName ?? '',
    cell: ({ row: { original: c } }) => c.customerName ?? <span className="as-of">—</span>,
  },
  {
    id: 'status',
    header: 'Status',
    accessorFn: (c) => c.status,
    cell: ({ row: { original: c } }) => (
      <>
        <StatusBadge status={c.status} /> <SignatureBeingChecked checking={c.signatureBeingChecked} />
      </>
    ),
  },
  {
    id: 'sources',
    header: 'Sources agree',
    enableSorting: false,
    cell: ({ row: { original: c } }) => <SourcesAgree c={c} />,
  },
  {
    id: 'flags',
    header: 'Flags',
    enableSorting: false,
    // An event the team database refused is kept on this desk only: the list says so (the detail says why).
    cell: ({ row: { original: c } }) => (
      <Flags flags={c.teamRefused ? [...c.flags, 'not_accepted_by_team'] : c.flags} />
    ),
  },
];

export function CollectionsScreen() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [text, setText] = useState('');
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const [selected, setSelected] = useState<number | null>(null);
  const options = useDeskQuery('payments.options', {});

  // Free text is applied when the agent pauses typing.
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.text === text ? f : { ...f, text })), 250);
    return () => clearTimeout(t);
  }, [text]);

  const dateError =
    filters.from && filters.to && filters.to < filters.from ? 'the "to" date is before the "from" date' : undefined;
  const request = useMemo(() => {
    const s = sorting[0];
    const column = (SORTABLE as readonly string[]).includes(s?.id ?? '') ? (s!.id as Sortable) : 'created_at';
    const from = dayStart(filters.from);
    const to = dayStart(filters.to, 1);
    return {
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.currency ? { currency: filters.currency } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined && !dateError ? { to } : {}),
      ...(filters.text.trim() ? { text: filters.text.trim() } : {}),
      ...(filters.flagged ? { flagged: true } : {}),
      sort: { column, dir: s && !s.desc ? ('asc' as const) : ('desc' as const) },
    };
  }, [filters, sorting, dateError]);

  // What the list holds, for deciding which pushed changes concern it (list-shows.ts); with the highest
  // collection id it has seen, since a push naming a higher one may add a row.
  const view = useRef<ListView>(EMPTY_VIEW);
  const newestSeen = useRef(0);
  const pages = usePagedQuery<'collections.list', CollectionRow>('collections.list', request, PAGE, {
    refreshOn: ['collections.updated', 'callbacks.ingested'],
    shows: (t) => listShows(view.current, newestSeen)(t),
  });
  useEffect(() => {
    for (const r of pages.rows) if (r.id > newestSeen.current) newestSeen.current = r.id;
    view.current = {
      ids: new Set(pages.rows.map((r) => r.id)),
      refs: new Set(pages.rows.map((r) => r.merchantReference)),
      status: filters.status,
      flagged: filters.flagged,
      sortedByStatus: request.sort.column === 'status',
      partial: pages.rows.length < (pages.total ?? 0),
    };
  }, [pages.rows, pages.total, filters.status, filters.flagged, request.sort.column]);

  const currencies = useMemo(() => {
    const set = new Set<string>((options.data ?? []).map((o) => o.currency));
    for (const r of pages.rows) set.add(r.currency);
    return [...set].sort();
  }, [options.data, pages.rows]);

  const filtered = JSON.stringify({ ...filters, text }) !== JSON.stringify(NO_FILTERS);
  const imports = useCallbackImport();

  return (
    <Screen title="Collections" actions={imports.button}>
      {imports.result}
      <div hidden={selected !== null}>
        <form className="filters panel" aria-label="Filter collections" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select
              value={filters.status}
              onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as Filters['status'] }))}
            >
              <option value="">Any</option>
              {STATUS_CODES.map((s) => (
                <option key={s} value={s}>
                  {statusLabel(s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Currency
            <select value={filters.currency} onChange={(e) => setFilters((f) => ({ ...f, currency: e.target.value }))}>
              <option value="">Any</option>
              {currencies.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
          <label>
            From
            <input
              type="date"
              value={filters.from}
              onChange={(e) => setFilters((f) => ({ ...f, from: e.target.value }))}
            />
          </label>
          <label>
            To
            <input
              type="date"
              value={filters.to}
              aria-invalid={dateError ? true : undefined}
              aria-describedby={dateError ? 'date-error' : undefined}
              onChange={(e) => setFilters((f) => ({ ...f, to: e.target.value }))}
            />
          </label>
          <label>
            Search
            <input
              type="search"
              value={text}
              placeholder="Reference or customer"
              onChange={(e) => setText(e.target.value)}
            />
          </label>
          <label className="check">
            <span>
              <input
                type="checkbox"
                checked={filters.flagged}
                onChange={(e) => setFilters((f) => ({ ...f, flagged: e.target.checked }))}
              />{' '}
              Flagged only
            </span>
          </label>
          {filtered && (
            <button
              type="button"
              onClick={() => {
                setFilters(NO_FILTERS);
                setText('');
              }}
            >
              Clear filters
            </button>
          )}
          {dateError && (
            <span className="field-error" id="date-error" role="alert">
              {dateError}
            </span>
          )}
        </form>
        <p className="count" role="status" aria-live="polite" data-testid="collections-count">
          {pages.total === undefined
            ? ''
            : `${pages.total.toLocaleString()} ${pages.total === 1 ? 'collection' : 'collections'}${filtered ? ' match' : ''}${
                pages.rows.length < pages.total ? ` (${pages.rows.length.toLocaleString()} loaded)` : ''
              }`}
          {sorting[0]?.id === 'amount' && !filters.currency && (
            <span data-testid="amount-sort-note"> · sorted by currency, then amount</span>
          )}
          {pages.busy && <span className="as-of"> · loading…</span>}
        </p>
        <ErrorBanner
          error={pages.error}
          title="Could not read the collections"
          action={<button onClick={pages.refresh}>Retry</button>}
        />
        {pages.total === undefined && pages.busy ? (
          <Loading what="collections" />
        ) : (
          <Table
            label="Collections"
            columns={columns}
            data={pages.rows}
            getRowId={(c) => String(c.id)}
            sorting={sorting}
            onSortingChange={setSorting}
            manualSorting
            height={560}
            onRowClick={(c) => setSelected(c.id)}
            onNearEnd={pages.more}
            empty={
              filtered ? 'No collection matches these filters.' : 'No collections yet. Take a payment to see it here.'
            }
          />
        )}
      </div>
      {selected !== null && (
        <CollectionDetail
          id={selected}
          onBack={() => {
            setSelected(null);
            // Back where the agent was: the list (its scroll position and loaded pages were kept).
            setTimeout(() => document.querySelector<HTMLElement>('.table-scroll')?.focus(), 0);
          }}
        />
      )}
    </Screen>
  );
}
