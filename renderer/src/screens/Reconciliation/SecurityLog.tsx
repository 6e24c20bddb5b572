// Refused callback deliveries: counts per hour, reason and source (read-only). They never touch a
// collection; this is where a flood or a misconfigured key shows.
import type { SecurityLogRow } from '../../../../main/callbacks/security-log-types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, type ColumnDef } from '../../ui/index.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { timeColumn } from './columns.js';

const REASON_LABEL: Record<string, string> = {
  bad_signature: 'Bad signature',
  missing_signature: 'No signature',
  malformed: 'Malformed',
  too_large: 'Too large',
  too_deep: 'Nested too deep',
  unsupported_type: 'Not JSON',
  rate_limited: 'Rate limited',
};

const columns: ColumnDef<SecurityLogRow, unknown>[] = [
  timeColumn('hour', 'Hour', (r) => r.bucketStart),
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
  timeColumn('last', 'Last', (r) => r.lastAt),
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
    <ReconTable
      titleId="security-log-title"
      title="Refused callbacks"
      intro="Deliveries refused by the callback receiver or an import, counted per hour. They never change a collection."
      read={queryRead(q)}
      errorTitle="Could not load the refused callbacks"
      loadingWhat="refused callbacks"
      rows={q.data?.rows}
      empty={<EmptyState title="No refused callbacks">Every delivery so far was signed and readable.</EmptyState>}
      table={{
        label: 'Refused callbacks',
        columns,
        height: 300,
        getRowId: (r) => `${r.bucketStart}-${r.reason}-${r.source}`,
      }}
    />
  );
}
