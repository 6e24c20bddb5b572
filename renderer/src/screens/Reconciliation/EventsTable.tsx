// Events as the audit lists them (every source's events and the resolutions, newest first), and as one
// collection's detail lists its own (without the reference column).
import type { AuditEvent } from '../../../../main/reconcile/types.shared.js';
import { Table, type ColumnDef, type TableProps } from '../../ui/index.js';
import { signatureLabel } from './labels.js';
import { amountColumn, referenceColumn, sourceColumn, statusColumn, timeColumn } from './columns.js';
import { useWords, type Say } from '../../words/index.js';
import { useMemo } from 'react';

function payloadText(p: string | null): string {
  if (!p) return '';
  return p.length > 200 ? p.slice(0, 200) + '…' : p;
}

/** A resolution's note (with who wrote it), or the payload as received, cut to 200 characters. */
/** A note (a resolution's, as its writer typed it, or the event's record) or the payload: kept as written. */
function NoteOrPayload({ e }: { e: AuditEvent }) {
  if (e.note) {
    const n = `${e.note}${e.actor ? ` — ${e.actor}` : ''}`;
    return (
      <span className="recon-payload" title={n} translate="no">
        {n}
      </span>
    );
  }
  const text = payloadText(e.payload);
  return (
    <span className="recon-payload mono" title={text} translate="no">
      {text}
    </span>
  );
}

const columnsFor = (w: Pick<Say, 't' | 'f'>): ColumnDef<AuditEvent, unknown>[] => [
  { id: 'id', header: '#', accessorKey: 'id', meta: { className: 'num' } },
  timeColumn(w, 'at', w.t('recon.col.received'), (e) => e.receivedAt),
  referenceColumn(w),
  sourceColumn(w),
  // The event's kind as stored (intent_saved, outcome...): a name of the record, not words.
  { id: 'kind', header: w.t('recon.col.event'), accessorKey: 'kind', meta: { data: true } },
  statusColumn(w),
  amountColumn(w),
  {
    id: 'signature',
    header: w.t('recon.col.signature'),
    accessorKey: 'signature',
    cell: (c) => {
      const s = c.row.original.signature;
      return (
        <span className={s === 'invalid' ? 'badge err' : s === 'verified' ? 'badge ok' : 'badge'}>
          {signatureLabel(w.t, s)}
        </span>
      );
    },
  },
  {
    id: 'note',
    header: w.t('recon.col.note'),
    enableSorting: false,
    cell: (c) => <NoteOrPayload e={c.row.original} />,
  },
];

/** The events table's settings, for a table named `label`. */
export function useEventsTable(
  label: string,
  { height = 420, showReference = true }: { height?: number | undefined; showReference?: boolean | undefined } = {},
): Omit<TableProps<AuditEvent>, 'data'> {
  const { t, f } = useWords();
  const columns = useMemo(() => columnsFor({ t, f }), [t, f]);
  return {
    label,
    columns: showReference ? columns : columns.filter((c) => c.id !== 'reference'),
    height,
    getRowId: (r) => String(r.id),
    empty: t('recon.events.none'),
  };
}

export function EventsTable({
  rows,
  label,
  height,
  showReference,
}: {
  rows: AuditEvent[];
  label: string;
  height?: number;
  showReference?: boolean;
}) {
  return <Table {...useEventsTable(label, { height, showReference })} data={rows} />;
}
