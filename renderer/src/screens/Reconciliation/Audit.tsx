// The audit view: every event and resolution, newest first, filterable by reference, source and kind.
import { useMemo, useState } from 'react';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState } from '../../ui/index.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { SOURCES, sourceLabel } from './labels.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { useEventsTable } from './EventsTable.js';
import { DateField } from '../../ui/DateField.js';
import { useWords } from '../../words/index.js';

interface AuditFilterValues {
  reference: string;
  source: string;
  kind: string;
  from: string;
  to: string;
}
const NO_FILTERS: AuditFilterValues = { reference: '', source: '', kind: '', from: '', to: '' };

/** The audit request for what the filters say. */
function auditRequest(f: AuditFilterValues): RequestOf<'reconcile.audit'> {
  const r: RequestOf<'reconcile.audit'> = { limit: 1000 };
  if (f.reference.trim()) r.reference = f.reference.trim();
  if (f.source) r.source = f.source as (typeof SOURCES)[number];
  if (f.kind.trim()) r.kind = f.kind.trim();
  const from = dayStart(f.from);
  const to = dayEnd(f.to);
  if (from !== undefined) r.from = from;
  if (to !== undefined) r.to = to;
  return r;
}

function AuditFilters({
  values,
  onChange,
}: {
  values: AuditFilterValues;
  onChange: (patch: Partial<AuditFilterValues>) => void;
}) {
  const { t } = useWords();
  return (
    <FilterForm label={t('recon.audit.label')}>
      <label>
        {t('recon.audit.reference')}
        <input
          aria-label={t('recon.audit.reference')}
          type="search"
          value={values.reference}
          onChange={(e) => onChange({ reference: e.target.value })}
        />
      </label>
      <label>
        {t('recon.audit.source')}
        <select
          aria-label={t('recon.audit.source')}
          value={values.source}
          onChange={(e) => onChange({ source: e.target.value })}
        >
          <option value="">{t('recon.f.all')}</option>
          {SOURCES.map((s) => (
            <option key={s} value={s}>
              {sourceLabel(t, s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('recon.audit.kind')}
        <select
          aria-label={t('recon.audit.kind')}
          value={values.kind}
          onChange={(e) => onChange({ kind: e.target.value })}
        >
          <option value="">{t('recon.f.all')}</option>
          <option value="resolution">{t('recon.audit.resolutions')}</option>
        </select>
      </label>
      <label>
        {t('recon.f.from')}
        <DateField aria-label={t('recon.f.from')} value={values.from} onChange={(from) => onChange({ from })} />
      </label>
      <label>
        {t('recon.f.to')}
        <DateField aria-label={t('recon.f.to')} value={values.to} onChange={(to) => onChange({ to })} />
      </label>
    </FilterForm>
  );
}

export function Audit() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const request = useMemo(() => auditRequest(filters), [filters]);
  const q = useDeskQuery('reconcile.audit', request, {
    refreshOn: ['callbacks.ingested', 'collections.updated', 'orphans.updated'],
  });
  const d = q.data;
  const { t } = useWords();
  const table = useEventsTable(t('recon.audit.table'));
  return (
    <ReconTable
      titleId="audit-title"
      title={t('recon.audit.title')}
      filters={<AuditFilters values={filters} onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))} />}
      read={queryRead(q)}
      errorTitle={t('recon.audit.failed')}
      loadingText={t('recon.audit.loading')}
      rows={d?.rows}
      empty={<EmptyState title={t('recon.audit.noneTitle')}>{t('recon.audit.none')}</EmptyState>}
      count={
        d && (
          <p className="as-of">
            {d.total > d.rows.length
              ? t('recon.audit.newest', { shown: d.rows.length, total: d.total })
              : t('recon.audit.count', { total: d.total })}
          </p>
        )
      }
      table={table}
    />
  );
}
