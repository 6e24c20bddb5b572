// Callbacks for references this desk does not know: listed, and resolvable with a note. The list and an
// open callback's panel follow the team: an orphan stored by a pulled batch (a callback serve received),
// or another desk's resolution, is read again as soon as main says so ('orphans.updated').
import { useMemo, useState } from 'react';
import type { OrphanRow } from '../../../../main/reconcile/types.shared.js';
import type { DeskError } from '../../desk.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, ErrorBanner, type ColumnDef } from '../../ui/index.js';
import { signatureLabel } from './labels.js';
import { useWords, type Say } from '../../words/index.js';
import { resolvedText } from './Detail.js';
import { RefusedResolution, ResolveForm, type Refusal } from './ResolveForm.js';
import { ReconTable, queryRead } from './ReconTable.js';
import { amountColumn, referenceColumn, sourceColumn, statusColumn, timeColumn } from './columns.js';

const FOLLOW = { refreshOn: ['callbacks.ingested' as const, 'orphans.updated' as const] };

const columnsFor = (w: Pick<Say, 't' | 'f'>): ColumnDef<OrphanRow, unknown>[] => [
  timeColumn(w, 'at', w.t('recon.col.received'), (r) => r.receivedAt),
  referenceColumn(w),
  {
    id: 'internal',
    header: w.t('recon.col.internal'),
    accessorKey: 'internalReference',
    meta: { data: true },
    cell: (c) => <span className="mono">{c.row.original.internalReference ?? '—'}</span>,
  },
  sourceColumn(w),
  statusColumn(w),
  amountColumn(w),
  {
    id: 'signature',
    header: w.t('recon.col.signature'),
    accessorKey: 'signature',
    cell: (c) => signatureLabel(w.t, c.row.original.signature),
  },
  {
    id: 'state',
    header: w.t('recon.col.state'),
    enableSorting: false,
    cell: (c) =>
      c.row.original.resolvedByEventId !== null ? (
        <span className="badge ok">{w.t('recon.resolved')}</span>
      ) : (
        <span className="badge err">{w.t('recon.open')}</span>
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
  const { t, f } = useWords();
  const columns = useMemo(() => columnsFor({ t, f }), [t, f]);
  return (
    <ReconTable
      titleId="orphans-title"
      title={t('recon.orphans.title')}
      intro={t('recon.orphans.intro')}
      filters={
        <label className="check">
          <input type="checkbox" checked={includeResolved} onChange={(e) => setIncludeResolved(e.target.checked)} />
          {t('recon.f.showResolved')}
        </label>
      }
      read={queryRead(q)}
      errorTitle={t('recon.orphans.failed')}
      loadingText={t('recon.orphans.loading')}
      rows={q.data?.rows}
      empty={<EmptyState title={t('recon.orphans.noneTitle')}>{t('recon.orphans.none')}</EmptyState>}
      table={{
        label: t('recon.orphans.table'),
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
  const w = useWords();
  const { t, rich } = w;
  return (
    <div className="panel">
      <div className="screen-header">
        <h3>
          {rich('recon.orphans.callback', {
            reference: (
              <span className="mono" translate="no">
                {orphan?.merchantReference ?? ''}
              </span>
            ),
            id: eventId,
          })}
        </h3>
        <button type="button" onClick={onClose}>
          {t('recon.close')}
        </button>
      </div>
      <ErrorBanner error={error} title={t('recon.orphans.loadFailed')} />
      {refusal && <RefusedResolution refusal={refusal} />}
      {orphan &&
        (orphan.resolvedByEventId !== null ? (
          <p role="status">
            {resolvedText(w, { by: orphan.resolvedBy, at: orphan.resolvedAt, note: orphan.resolutionNote })}
          </p>
        ) : (
          <ResolveForm
            target={{ orphanEventId: orphan.eventId }}
            label={t('recon.orphans.resolve', { reference: orphan.merchantReference })}
            onResolved={onResolved}
            onRefused={(error, note) => onRefused({ error, note })}
          />
        ))}
    </div>
  );
}
