// Refused callback deliveries: counts per hour, reason and source (read-only). They never touch a
// collection; this is where a flood or a misconfigured key shows.
import type { SecurityLogRow } from '../../../../main/callbacks/security-log-types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, type ColumnDef } from '../../ui/index.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { timeColumn } from './columns.js';
import { useWords, type Say } from '../../words/index.js';
import { useMemo } from 'react';

const REASONS = [
  'bad_signature',
  'missing_signature',
  'malformed',
  'too_large',
  'too_deep',
  'unsupported_type',
  'rate_limited',
] as const;

const reasonLabel = (t: Say['t'], r: string): string =>
  (REASONS as readonly string[]).includes(r) ? t(`recon.sec.${r as (typeof REASONS)[number]}`) : r;

const columnsFor = (w: Pick<Say, 't' | 'f'>): ColumnDef<SecurityLogRow, unknown>[] => [
  timeColumn(w, 'hour', w.t('recon.col.hour'), (r) => r.bucketStart),
  {
    id: 'reason',
    header: w.t('recon.col.reason'),
    accessorKey: 'reason',
    cell: (c) => reasonLabel(w.t, c.row.original.reason),
  },
  {
    id: 'source',
    header: w.t('recon.col.source'),
    accessorKey: 'source',
    meta: { data: true },
    cell: (c) => <span className="mono">{c.row.original.source}</span>,
  },
  { id: 'count', header: w.t('recon.col.count'), accessorKey: 'count', meta: { className: 'num' } },
  timeColumn(w, 'last', w.t('recon.col.last'), (r) => r.lastAt),
  {
    id: 'sample',
    header: w.t('recon.col.sample'),
    enableSorting: false,
    meta: { data: true },
    cell: (c) => <span className="mono">{c.row.original.samples[0] ?? '—'}</span>,
  },
];

export function SecurityLog() {
  const q = useDeskQuery('reconcile.securityLog', { limit: 500 }, { refreshOn: ['callbacks.ingested'] });
  const { t, f } = useWords();
  const columns = useMemo(() => columnsFor({ t, f }), [t, f]);
  return (
    <ReconTable
      titleId="security-log-title"
      title={t('recon.sec.title')}
      intro={t('recon.sec.intro')}
      read={queryRead(q)}
      errorTitle={t('recon.sec.failed')}
      loadingText={t('recon.sec.loading')}
      rows={q.data?.rows}
      empty={<EmptyState title={t('recon.sec.noneTitle')}>{t('recon.sec.none')}</EmptyState>}
      table={{
        label: t('recon.sec.table'),
        columns,
        height: 300,
        getRowId: (r) => `${r.bucketStart}-${r.reason}-${r.source}`,
      }}
    />
  );
}
