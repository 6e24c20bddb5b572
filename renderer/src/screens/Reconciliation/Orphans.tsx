// Callbacks for references this desk does not know: listed, and resolvable with a note. The list and an
// open callback's panel follow the team: an orphan stored by a pulled batch (a callback serve received),
// or another desk's resolution, is read again as soon as main says so ('orphans.updated').
import { useState } from 'react';
import type { OrphanRow } from '../../../../main/reconcile/types.shared.js';
import type { DeskError } from '../../desk.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, type ColumnDef } from '../../ui/index.js';
import { formatDateTime } from '../../ui/format.js';
import { SIGNATURE_LABEL } from './labels.js';
import { RefusedResolution, ResolveForm, type Refusal } from './ResolveForm.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { amountColumn, referenceColumn, sourceColumn, statusColumn, timeColumn } from './columns.js';

const FOLLOW = { refreshOn: ['callbacks.ingested' as const, 'orphans.updated' as const] };

const columns: ColumnDef<OrphanRow, unknown>[] = [
  timeColumn('at', 'Received', (r) => r.receivedAt),
  referenceColumn(),
  {
    id: 'internal',
    header: 'Internal reference',
    accessorKey: 'internalReference',
    cell: (c) => <span className="mono">{c.row.original.internalReference ?? '—'}</span>,
  },
  sourceColumn(),
  statusColumn(),
  amountColumn(),
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
  const q = useDeskQuery('reconcile.orphans', { includeResolved, limit: 1000 }, FOLLOW);
  // The open callback read on its own, resolved or not (the list may no longer hold it once resolved).
  const one = useDeskQuery(
    'reconcile.orphans',
    { eventId: selectedId ?? 1, includeResolved: true },
    { ...FOLLOW, enabled: selectedId !== null },
  );
  const choose = (id: number | null) => {
    setSelectedId(id);
    setRefusal(null);
  };
  return (
    <ReconTable
      titleId="orphans-title"
      title="Callbacks for unknown references"
      intro="Deliveries that name a reference this desk never created. Check them with the service, then resolve with a note."
      filters={
        <label className="check">
          <input type="checkbox" checked={includeResolved} onChange={(e) => setIncludeResolved(e.target.checked)} />
          Show resolved
        </label>
      }
      read={queryRead(q)}
      errorTitle="Could not load the orphan callbacks"
      loadingWhat="orphan callbacks"
      rows={q.data?.rows}
      empty={
        <EmptyState title="No callbacks for unknown references">
          Every callback received so far matches a collection made here.
        </EmptyState>
      }
      table={{
        label: 'Orphan callbacks',
        columns,
        height: 300,
        getRowId: (r) => String(r.eventId),
        onRowClick: (r) => choose(r.eventId),
      }}
    >
      {selectedId !== null && (
        <OrphanPanel
          eventId={selectedId}
          orphan={one.data?.rows.find((r) => r.eventId === selectedId) ?? null}
          error={one.error}
          refusal={refusal}
          onClose={() => choose(null)}
          onResolved={() => {
            choose(null);
            void q.reload();
            onChanged();
          }}
          onRefused={(r) => {
            setRefusal(r);
            void q.reload();
            void one.reload();
          }}
        />
      )}
    </ReconTable>
  );
}

/** The open callback: who resolved it, or the form to resolve it. */
function OrphanPanel({
  eventId,
  orphan,
  error,
  refusal,
  onClose,
  onResolved,
  onRefused,
}: {
  eventId: number;
  orphan: OrphanRow | null;
  error: DeskError | undefined;
  refusal: Refusal | null;
  onClose: () => void;
  onResolved: () => void;
  onRefused: (r: Refusal) => void;
}) {
  return (
    <div className="panel">
      <div className="screen-header">
        <h3>
          Callback <span className="mono">{orphan?.merchantReference ?? ''}</span> (event #{eventId})
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorBanner error={error} title="Could not load this callback" />
      {refusal && <RefusedResolution refusal={refusal} />}
      {orphan &&
        (orphan.resolvedByEventId !== null ? (
          <p role="status">
            <strong>Resolved by</strong> {orphan.resolvedBy ?? 'someone'} at {formatDateTime(orphan.resolvedAt)}
            {orphan.resolutionNote ? `: ${orphan.resolutionNote}` : ''}
          </p>
        ) : (
          <ResolveForm
            target={{ orphanEventId: orphan.eventId }}
            label={`Resolve callback ${orphan.merchantReference}`}
            onResolved={onResolved}
            onRefused={(message, note) => onRefused({ message, note })}
          />
        ))}
    </div>
  );
}
