// The exceptions queue: its filters, a virtualised table read a page at a time, and the selected
// collection's detail beside it.
import { useState } from 'react';
import type { ExceptionRow } from '../../../../main/reconcile/types.shared.js';
import { usePagedQuery } from '../../hooks.js';
import { EmptyState, type ColumnDef } from '../../ui/index.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { kindBadgeClass, kindLabel } from './labels.js';
import { Detail } from './Detail.js';
import { QueueFilterForm, useQueueFilters } from './ExceptionFilters.js';
import { ReconTable } from './ReconTable.js';
import { amountColumn, referenceColumn, timeColumn } from './columns.js';

const PAGE = 200;

/** The open kinds (or, once resolved, every kind it had), and whether it was resolved. */
function Kinds({ r }: { r: ExceptionRow }) {
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
}

const columns: ColumnDef<ExceptionRow, unknown>[] = [
  referenceColumn(),
  timeColumn('created', 'Created', (r) => r.createdAt),
  amountColumn(),
  {
    id: 'status',
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <StatusBadge status={c.row.original.status} />,
  },
  { id: 'kinds', header: 'Exceptions', enableSorting: false, cell: (c) => <Kinds r={c.row.original} /> },
];

/** How many match, how many are loaded, and how to open one. */
function QueueCount({ total, loaded }: { total: number; loaded: number }) {
  return (
    <p className="as-of" aria-live="polite" data-testid="exceptions-count">
      {total === 0
        ? 'No exceptions match.'
        : `${total.toLocaleString()} exception${total === 1 ? '' : 's'}${loaded < total ? ` (${loaded.toLocaleString()} loaded; scroll for more)` : ''}.`}
      {total > 0 && ' Select a row (Enter) to see every source side by side.'}
    </p>
  );
}

export function Exceptions({ onChanged }: { onChanged: () => void }) {
  const filters = useQueueFilters();
  const [selected, setSelected] = useState<number | null>(null);
  // Server-side pages, like Collections: the table asks for the next page as it nears the end.
  // 'orphans.updated': the kind filter counts the open orphans too.
  const q = usePagedQuery<'reconcile.exceptions', ExceptionRow>('reconcile.exceptions', filters.request, PAGE, {
    refreshOn: ['callbacks.ingested', 'collections.updated', 'orphans.updated'],
  });
  const changed = () => {
    q.refresh();
    onChanged();
  };

  return (
    <div className="split">
      <ReconTable
        titleId="queue-title"
        title="Exceptions queue"
        filters={<QueueFilterForm filters={filters} counts={q.extra?.countsByKind ?? {}} />}
        read={{ error: q.error, loading: q.total === undefined && q.busy, retry: q.refresh }}
        errorTitle="Could not load the exceptions"
        loadingWhat="exceptions"
        rows={q.total === undefined ? undefined : q.rows}
        count={<QueueCount total={q.total ?? 0} loaded={q.rows.length} />}
        table={{
          label: 'Exceptions',
          columns,
          height: 420,
          getRowId: (r) => String(r.collectionId),
          onRowClick: (r) => setSelected(r.collectionId),
          onNearEnd: q.more,
          empty: filters.any ? (
            <EmptyState title="No exceptions match these filters">Clear a filter to see more.</EmptyState>
          ) : (
            <EmptyState title="No open exceptions">Every source agrees for every collection so far.</EmptyState>
          ),
        }}
      />
      {selected !== null && (
        <section aria-labelledby="detail-title" className="panel">
          <Detail key={selected} collectionId={selected} onResolved={changed} onClose={() => setSelected(null)} />
        </section>
      )}
    </div>
  );
}
