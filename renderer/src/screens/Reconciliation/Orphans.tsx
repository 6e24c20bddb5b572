// Callbacks for references this desk does not know: listed, and resolvable with a note. The list and an
// open callback's panel follow the team: an orphan stored by a pulled batch (a callback serve received),
// or another desk's resolution, is read again as soon as main says so ('orphans.updated').
import { useState } from 'react';
import type { OrphanRow } from '../../../../main/reconcile/types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, Loading, Money, Table, type ColumnDef } from '../../ui/index.js';
import { shortTime } from '../../ui/dates.js';
import { SIGNATURE_LABEL, SOURCE_LABEL } from './labels.js';
import { ResolveForm } from './ResolveForm.js';
import { statusLabel } from '../../ui/status.js';
import { RefusedResolution, type Refusal } from './Detail.js';

const columns: ColumnDef<OrphanRow, unknown>[] = [
  { id: 'at', header: 'Received', accessorKey: 'receivedAt', cell: (c) => shortTime(c.row.original.receivedAt) },
  {
    id: 'reference',
    header: 'Reference',
    accessorKey: 'merchantReference',
    cell: (c) => <span className="mono">{c.row.original.merchantReference}</span>,
  },
  {
    id: 'internal',
    header: 'Internal reference',
    accessorKey: 'internalReference',
    cell: (c) => <span className="mono">{c.row.original.internalReference ?? '—'}</span>,
  },
  {
    id: 'source',
    header: 'Source',
    accessorKey: 'source',
    cell: (c) => SOURCE_LABEL[c.row.original.source] ?? c.row.original.source,
  },
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
    cell: (c) => SIGNATURE_LABEL[c.row.original.signature] ?? c.row.original.signature,
  },
  {
    id: 'state',
    header: 'State',
    enableSorting: false,
    cell: (c) =>
      c.row.original.resolvedByEventId !== null ? (
        <span className="badge ok">Resolved</span>
      ) : (
        <span className="badge err">Open</span>
      ),
  },
];

export function Orphans({ onChanged }: { onChanged: () => void }) {
  const [includeResolved, setIncludeResolved] = useState(false);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const q = useDeskQuery(
    'reconcile.orphans',
    { includeResolved, limit: 1000 },
    { refreshOn: ['callbacks.ingested', 'orphans.updated'] },
  );
  // The open callback read on its own, resolved or not (the list may no longer hold it once resolved).
  const one = useDeskQuery(
    'reconcile.orphans',
    { eventId: selectedId ?? 1, includeResolved: true },
    { refreshOn: ['callbacks.ingested', 'orphans.updated'], enabled: selectedId !== null },
  );
  const selected = selectedId === null ? null : (one.data?.rows.find((r) => r.eventId === selectedId) ?? null);
  const choose = (id: number | null) => {
    setSelectedId(id);
    setRefusal(null);
  };
  return (
    <section aria-labelledby="orphans-title">
      <h2 id="orphans-title">Callbacks for unknown references</h2>
      <p className="as-of">
        Deliveries that name a reference this desk never created. Check them with the service, then resolve with a note.
      </p>
      <label className="check">
        <input type="checkbox" checked={includeResolved} onChange={(e) => setIncludeResolved(e.target.checked)} />
        Show resolved
      </label>
      <ErrorBanner
        error={q.error}
        title="Could not load the orphan callbacks"
        action={<button onClick={() => void q.reload()}>Retry</button>}
      />
      {q.loading && <Loading what="orphan callbacks" />}
      {q.data &&
        (q.data.total === 0 ? (
          <EmptyState title="No callbacks for unknown references">
            Every callback received so far matches a collection made here.
          </EmptyState>
        ) : (
          <Table
            label="Orphan callbacks"
            columns={columns}
            data={q.data.rows}
            height={300}
            getRowId={(r) => String(r.eventId)}
            onRowClick={(r) => choose(r.eventId)}
          />
        ))}
      {selectedId !== null && (
        <div className="panel">
          <div className="screen-header">
            <h3>
              Callback <span className="mono">{selected?.merchantReference ?? ''}</span> (event #{selectedId})
            </h3>
            <button type="button" onClick={() => choose(null)}>
              Close
            </button>
          </div>
          <ErrorBanner error={one.error} title="Could not load this callback" />
          {refusal && <RefusedResolution refusal={refusal} />}
          {selected &&
            (selected.resolvedByEventId !== null ? (
              <p role="status">
                <strong>Resolved by</strong> {selected.resolvedBy ?? 'someone'} at {shortTime(selected.resolvedAt)}
                {selected.resolutionNote ? `: ${selected.resolutionNote}` : ''}
              </p>
            ) : (
              <ResolveForm
                target={{ orphanEventId: selected.eventId }}
                label={`Resolve callback ${selected.merchantReference}`}
                onResolved={() => {
                  choose(null);
                  void q.reload();
                  onChanged();
                }}
                onRefused={(message, note) => {
                  setRefusal({ message, note });
                  void q.reload();
                  void one.reload();
                }}
              />
            ))}
        </div>
      )}
    </section>
  );
}
