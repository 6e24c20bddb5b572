// Events as the audit lists them (every source's events and the resolutions, newest first), and as one
// collection's detail lists its own (without the reference column).
import type { AuditEvent } from '../../../../main/reconcile/types.shared.js';
import { Table, type ColumnDef, type TableProps } from '../../ui/index.js';
import { SIGNATURE_LABEL } from './labels.js';
import { amountColumn, referenceColumn, sourceColumn, statusColumn, timeColumn } from './columns.js';

function payloadText(p: string | null): string {
  if (!p) return '';
  return p.length > 200 ? p.slice(0, 200) + '…' : p;
}

/** A resolution's note (with who wrote it), or the payload as received, cut to 200 characters. */
function NoteOrPayload({ e }: { e: AuditEvent }) {
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
}

const columns: ColumnDef<AuditEvent, unknown>[] = [
  { id: 'id', header: '#', accessorKey: 'id', meta: { className: 'num' } },
  timeColumn('at', 'Received', (e) => e.receivedAt),
  referenceColumn(),
  sourceColumn(),
  { id: 'kind', header: 'Event', accessorKey: 'kind' },
  statusColumn(),
  amountColumn(),
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
  { id: 'note', header: 'Note / payload', enableSorting: false, cell: (c) => <NoteOrPayload e={c.row.original} /> },
];

const withoutReference = columns.filter((c) => c.id !== 'reference');

/** The events table's settings, for a table named `label`. */
export function eventsTable(
  label: string,
  { height = 420, showReference = true }: { height?: number | undefined; showReference?: boolean | undefined } = {},
): Omit<TableProps<AuditEvent>, 'data'> {
  return {
    label,
    columns: showReference ? columns : withoutReference,
    height,
    getRowId: (r) => String(r.id),
    empty: 'No events.',
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
  return <Table {...eventsTable(label, { height, showReference })} data={rows} />;
}
