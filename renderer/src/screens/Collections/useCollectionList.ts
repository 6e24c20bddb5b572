// The Collections list's state: its filters (free text applied when the agent pauses typing), the sort,
// the request they make, the server-side pages (collections.list) and which pushed changes concern what
// it holds (list-shows.ts).
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { useDeskQuery, usePagedQuery } from '../../hooks.js';
import type { SortingState } from '../../ui/index.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import type { StatusCode } from '../../ui/status.js';
import { EMPTY_VIEW, listShows, type ListView } from './list-shows.js';

const SORTABLE = ['created_at', 'amount', 'currency', 'status', 'reference', 'customer'] as const;
type Sortable = (typeof SORTABLE)[number];
const PAGE = 200;

export interface Filters {
  status: '' | StatusCode;
  currency: string;
  from: string; // yyyy-mm-dd (local)
  to: string;
  text: string;
  flagged: boolean;
}

const NO_FILTERS: Filters = { status: '', currency: '', from: '', to: '', text: '', flagged: false };

function listRequest(filters: Filters, sorting: SortingState, dateError: string | undefined) {
  const s = sorting[0];
  const column = (SORTABLE as readonly string[]).includes(s?.id ?? '') ? (s!.id as Sortable) : 'created_at';
  const from = dayStart(filters.from);
  const to = dayEnd(filters.to);
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.currency ? { currency: filters.currency } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined && !dateError ? { to } : {}),
    ...(filters.text.trim() ? { text: filters.text.trim() } : {}),
    ...(filters.flagged ? { flagged: true } : {}),
    sort: { column, dir: s && !s.desc ? ('asc' as const) : ('desc' as const) },
  };
}

/** Keeps `viewRef` to what the list holds, and `newestSeenRef` up to the highest collection id among its rows. */
function useKeepListView(
  viewRef: RefObject<ListView>,
  newestSeenRef: RefObject<number>,
  rows: CollectionRow[],
  total: number | undefined,
  filters: Filters,
  sortedByStatus: boolean,
): void {
  useEffect(() => {
    for (const r of rows) if (r.id > newestSeenRef.current) newestSeenRef.current = r.id;
    viewRef.current = {
      ids: new Set(rows.map((r) => r.id)),
      refs: new Set(rows.map((r) => r.merchantReference)),
      status: filters.status,
      flagged: filters.flagged,
      sortedByStatus,
      partial: rows.length < (total ?? 0),
    };
  }, [viewRef, newestSeenRef, rows, total, filters.status, filters.flagged, sortedByStatus]);
}

export function useCollectionList() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [text, setText] = useState('');
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const options = useDeskQuery('payments.options', {});

  // Free text is applied when the agent pauses typing.
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.text === text ? f : { ...f, text })), 250);
    return () => clearTimeout(t);
  }, [text]);

  const dateError =
    filters.from && filters.to && filters.to < filters.from ? ('collections.dateOrder' as const) : undefined;
  const request = useMemo(() => listRequest(filters, sorting, dateError), [filters, sorting, dateError]);
  // What the list holds, for deciding which pushed changes concern it (list-shows.ts); with the highest
  // collection id it has seen, since a push naming a higher one may add a row.
  const view = useRef<ListView>(EMPTY_VIEW);
  const newestSeen = useRef(0);
  const pages = usePagedQuery<'collections.list', CollectionRow>('collections.list', request, PAGE, {
    refreshOn: ['collections.updated', 'callbacks.ingested'],
    shows: (t) => listShows(view.current, newestSeen)(t),
  });
  useKeepListView(view, newestSeen, pages.rows, pages.total, filters, request.sort.column === 'status');

  const currencies = useMemo(() => {
    const set = new Set<string>((options.data ?? []).map((o) => o.currency));
    for (const r of pages.rows) set.add(r.currency);
    return [...set].sort();
  }, [options.data, pages.rows]);

  return {
    filters,
    setFilters,
    text,
    setText,
    sorting,
    setSorting,
    dateError,
    currencies,
    pages,
    filtered: JSON.stringify({ ...filters, text }) !== JSON.stringify(NO_FILTERS),
    clear: () => {
      setFilters(NO_FILTERS);
      setText('');
    },
  };
}
