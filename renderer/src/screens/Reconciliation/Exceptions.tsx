// The exceptions queue: its filters, a virtualised table read a page at a time, and the selected
// collection's detail beside it.
import { useMemo, useState } from 'react';
import type { ExceptionRow } from '../../../../main/reconcile/types.shared.js';
import { usePagedQuery } from '../../hooks.js';
import { EmptyState, type ColumnDef } from '../../ui/index.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { kindBadgeClass, kindLabel } from './labels.js';
import { Detail } from './Detail.js';
import { QueueFilterForm, useQueueFilters } from './ExceptionFilters.js';
import { ReconTable } from './ReconTable.js';
import { amountColumn, referenceColumn, timeColumn } from './columns.js';
import { useWords, type Say } from '../../words/index.js';

const PAGE = 200;

/** The open kinds (or, once resolved, every kind it had), and whether it was resolved. */
function Kinds({ r }: { r: ExceptionRow }) {
  const { t } = useWords();
  const shown = r.openKinds.length ? r.openKinds : r.kinds;
  return (
    <span className="kinds">
      {shown.map((k) => (
        <span key={k} className={r.openKinds.length ? kindBadgeClass(k) : 'badge'}>
          {kindLabel(t, k)}
        </span>
      ))}
      {r.resolvedByEventId !== null && <span className="badge ok">{t('recon.resolved')}</span>}
    </span>
  );
}

const columnsFor = (w: Pick<Say, 't' | 'f'>): ColumnDef<ExceptionRow, unknown>[] => [
  referenceColumn(w),
  timeColumn(w, 'created', w.t('recon.col.created'), (r) => r.createdAt),
  amountColumn(w),
  {
    id: 'status',
    header: w.t('recon.col.status'),
    accessorKey: 'status',
    cell: (c) => <StatusBadge status={c.row.original.status} />,
  },
  { id: 'kinds', header: w.t('recon.col.exceptions'), enableSorting: false, cell: (c) => <Kinds r={c.row.original} /> },
];

/** How many match, how many are loaded, and how to open one. */
function QueueCount({ total, loaded }: { total: number; loaded: number }) {
  const { t } = useWords();
  return (
    <p className="as-of" aria-live="polite" data-testid="exceptions-count">
      {total === 0
        ? t('recon.queueCountNone')
        : t(loaded < total ? 'recon.queueCountLoaded' : 'recon.queueCount', { total, loaded })}
      {total > 0 && ` ${t('recon.queueSelect')}`}
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
  const { t, f } = useWords();
  const columns = useMemo(() => columnsFor({ t, f }), [t, f]);

  return (
    <div className="split">
      <ReconTable
        titleId="queue-title"
        title={t('recon.queue')}
        filters={<QueueFilterForm filters={filters} counts={q.extra?.countsByKind ?? {}} />}
        read={{ error: q.error, loading: q.total === undefined && q.busy, retry: q.refresh }}
        errorTitle={t('recon.queueFailed')}
        loadingText={t('recon.queueLoading')}
        rows={q.total === undefined ? undefined : q.rows}
        count={<QueueCount total={q.total ?? 0} loaded={q.rows.length} />}
        table={{
          label: t('recon.queueTable'),
          columns,
          height: 420,
          getRowId: (r) => String(r.collectionId),
          onRowClick: (r) => setSelected(r.collectionId),
          onNearEnd: q.more,
          empty: filters.any ? (
            <EmptyState title={t('recon.queueNoMatchTitle')}>{t('recon.queueNoMatch')}</EmptyState>
          ) : (
            <EmptyState title={t('recon.queueNoneTitle')}>{t('recon.queueNone')}</EmptyState>
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
