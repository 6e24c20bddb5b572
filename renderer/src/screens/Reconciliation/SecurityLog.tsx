// Refused callback deliveries: counts per hour, reason and source (read-only). They never touch a
// collection; this is where a flood or a misconfigured key shows.
import type { SecurityLogRow } from '../../../../main/callbacks/security-log-types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading, Table, type ColumnDef } from '../../ui/index.js';
import { formatDateTime } from '../../ui/format.js';

const REASON_LABEL: Record<string, string> = {
  bad_signature: 'Bad signature',
  missing_signature: 'No signature',
  malformed: 'Malformed',
  too_large: 'Too large',
  unsupported_type: 'Not JSON',
  rate_limited: 'Rate limited',
};

const columns: ColumnDef<SecurityLogRow, unknown>[] = [
  {
    id: 'hour',
    header: 'Hour',
    accessorKey: 'bucketStart',
    cell: (c) => formatDateTime(c.row.original.bucketStart),
  },
  {
    id: 'reason',
    header: 'Reason',
    accessorKey: 'reason',
    cell: (c) => REASON_LABEL[c.row.original.reason] ?? c.row.original.reason,
  },
  {
    id: 'source',
    header: 'Source',
    accessorKey: 'source',
    cell: (c) => <span className="mono">{c.row.original.source}</span>,
  },
  { id: 'count', header: 'Count', accessorKey: 'count', meta: { className: 'num' } },
  {
    id: 'last',
    header: 'Last',
    accessorKey: 'lastAt',
    cell: (c) => formatDateTime(c.row.original.lastAt),
  },
  {
    id: 'sample',
    header: 'Sample',
    enableSorting: false,
    cell: (c) => <span className="mono">{c.row.original.samples[0] ?? '—'}</span>,
  },
];

export function SecurityLog() {
  const q = useDeskQuery('reconcile.securityLog', { limit: 500 }, { refreshOn: ['callbacks.ingested'] });
  return (
    <section aria-labelledby="security-log-title">
      <h2 id="security-log-title">Refused callbacks</h2>
      <p className="as-of">
        Deliveries refused by the callback receiver or an import, counted per hour. They never change a collection.
      </p>
      <ErrorBanner
        error={q.error}
        title="Could not load the refused callbacks"
        action={<button onClick={() => void q.reload()}>Retry</button>}
      />
      {q.loading && <Loading what="refused callbacks" />}
      {q.data &&
        (q.data.rows.length === 0 ? (
          <EmptyState title="No refused callbacks">Every delivery so far was signed and readable.</EmptyState>
        ) : (
          <Table
            label="Refused callbacks"
            columns={columns}
            data={q.data.rows}
            height={300}
            getRowId={(r) => `${r.bucketStart}-${r.reason}-${r.source}`}
          />
        ))}
    </section>
  );
}
