// The audit view: every event and resolution, newest first, filterable by reference, source and kind.
import { useMemo, useState } from 'react';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState } from '../../ui/index.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { SOURCE_LABEL } from './labels.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { eventsTable } from './EventsTable.js';

const SOURCES = ['intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security'] as const;

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
  return (
    <FilterForm label="Audit filters">
      <label>
        Reference
        <input
          aria-label="Reference"
          type="search"
          value={values.reference}
          onChange={(e) => onChange({ reference: e.target.value })}
        />
      </label>
      <label>
        Source
        <select aria-label="Source" value={values.source} onChange={(e) => onChange({ source: e.target.value })}>
          <option value="">All</option>
          {SOURCES.map((s) => (
            <option key={s} value={s}>
              {SOURCE_LABEL[s]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Event kind
        <select aria-label="Event kind" value={values.kind} onChange={(e) => onChange({ kind: e.target.value })}>
          <option value="">All</option>
          <option value="resolution">Resolutions only</option>
        </select>
      </label>
      <label>
        From
        <input aria-label="From" type="date" value={values.from} onChange={(e) => onChange({ from: e.target.value })} />
      </label>
      <label>
        To
        <input aria-label="To" type="date" value={values.to} onChange={(e) => onChange({ to: e.target.value })} />
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
  return (
    <ReconTable
      titleId="audit-title"
      title="Audit: every event and resolution"
      filters={<AuditFilters values={filters} onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))} />}
      read={queryRead(q)}
      errorTitle="Could not load the audit"
      loadingWhat="events"
      rows={d?.rows}
      empty={
        <EmptyState title="No events match">Events appear here as payments are made and callbacks arrive.</EmptyState>
      }
      count={
        d && (
          <p className="as-of">
            {d.total > d.rows.length
              ? `Showing the newest ${d.rows.length.toLocaleString()} of ${d.total.toLocaleString()} events.`
              : `${d.total.toLocaleString()} event${d.total === 1 ? '' : 's'}.`}
          </p>
        )
      }
      table={eventsTable('Audit events')}
    />
  );
}
