// The audit view: every event and resolution, newest first, filterable by reference, source and kind.
import { useMemo, useState } from 'react';
import type { AuditEvent } from '../../../../main/reconcile/types.shared.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading, Money, Table, type ColumnDef } from '../../ui/index.js';
import { dayEnd, dayStart, shortTime } from '../../ui/dates.js';
import { SIGNATURE_LABEL, SOURCE_LABEL } from './labels.js';
import { statusLabel } from '../../ui/status.js';

const SOURCES = ['intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security'] as const;

function payloadText(p: string | null): string {
  if (!p) return '';
  return p.length > 200 ? p.slice(0, 200) + '…' : p;
}

const columns: ColumnDef<AuditEvent, unknown>[] = [
  { id: 'id', header: '#', accessorKey: 'id', meta: { className: 'num' } },
  { id: 'at', header: 'Received', accessorKey: 'receivedAt', cell: (c) => shortTime(c.row.original.receivedAt) },
  {
    id: 'reference',
    header: 'Reference',
    accessorKey: 'merchantReference',
    cell: (c) => <span className="mono">{c.row.original.merchantReference}</span>,
  },
  {
    id: 'source',
    header: 'Source',
    accessorKey: 'source',
    cell: (c) => SOURCE_LABEL[c.row.original.source] ?? c.row.original.source,
  },
  { id: 'kind', header: 'Event', accessorKey: 'kind' },
  { id: 'status', header: 'Status', accessorKey: 'status', cell: (c) => statusLabel(c.row.original.status) },
  {
    id: 'amount',
    header: 'Amount',
    accessorKey: 'amountMinor',
    meta: { className: 'num' },
    cell: (c) =>
      c.row.original.amountMinor === null ? (
        '—'
      ) : (
        <Money minor={c.row.original.amountMinor} currency={c.row.original.currency ?? ''} />
      ),
  },
  {
    id: 'signature',
    header: 'Signature',
    accessorKey: 'signature',
    cell: (c) => {
      const s = c.row.original.signature;
      return (
        <span className={s === 'invalid' ? 'badge err' : s === 'verified' ? 'badge ok' : 'badge'}>
          {SIGNATURE_LABEL[s] ?? s}
        </span>
      );
    },
  },
  {
    id: 'note',
    header: 'Note / payload',
    enableSorting: false,
    cell: (c) => {
      const e = c.row.original;
      if (e.note) {
        const n = `${e.note}${e.actor ? ` — ${e.actor}` : ''}`;
        return (
          <span className="recon-payload" title={n}>
            {n}
          </span>
        );
      }
      const t = payloadText(e.payload);
      return (
        <span className="recon-payload mono" title={t}>
          {t}
        </span>
      );
    },
  },
];

const withoutReference = columns.filter((c) => c.id !== 'reference');

export function EventsTable({
  rows,
  label,
  height = 420,
  showReference = true,
}: {
  rows: AuditEvent[];
  label: string;
  height?: number;
  showReference?: boolean;
}) {
  return (
    <Table
      label={label}
      columns={showReference ? columns : withoutReference}
      data={rows}
      height={height}
      getRowId={(r) => String(r.id)}
      empty="No events."
    />
  );
}

export function Audit() {
  const [reference, setReference] = useState('');
  const [source, setSource] = useState('');
  const [kind, setKind] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const request = useMemo(() => {
    const r: RequestOf<'reconcile.audit'> = { limit: 1000 };
    if (reference.trim()) r.reference = reference.trim();
    if (source) r.source = source as (typeof SOURCES)[number];
    if (kind.trim()) r.kind = kind.trim();
    const f = dayStart(from);
    const t = dayEnd(to);
    if (f !== undefined) r.from = f;
    if (t !== undefined) r.to = t;
    return r;
  }, [reference, source, kind, from, to]);
  const q = useDeskQuery('reconcile.audit', request, {
    refreshOn: ['callbacks.ingested', 'collections.updated', 'orphans.updated'],
  });
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit: every event and resolution</h2>
      <form className="filters" aria-label="Audit filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Reference
          <input
            aria-label="Reference"
            type="search"
            value={reference}
            onChange={(e) => setReference(e.target.value)}
          />
        </label>
        <label>
          Source
          <select aria-label="Source" value={source} onChange={(e) => setSource(e.target.value)}>
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
          <select aria-label="Event kind" value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">All</option>
            <option value="resolution">Resolutions only</option>
          </select>
        </label>
        <label>
          From
          <input aria-label="From" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To
          <input aria-label="To" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </form>
      <ErrorBanner
        error={q.error}
        title="Could not load the audit"
        action={<button onClick={() => void q.reload()}>Retry</button>}
      />
      {q.loading && <Loading what="events" />}
      {q.data &&
        (q.data.total === 0 ? (
          <EmptyState title="No events match">Events appear here as payments are made and callbacks arrive.</EmptyState>
        ) : (
          <>
            <p className="as-of">
              {q.data.total > q.data.rows.length
                ? `Showing the newest ${q.data.rows.length.toLocaleString()} of ${q.data.total.toLocaleString()} events.`
                : `${q.data.total.toLocaleString()} event${q.data.total === 1 ? '' : 's'}.`}
            </p>
            <EventsTable rows={q.data.rows} label="Audit events" />
          </>
        ))}
    </section>
  );
}
