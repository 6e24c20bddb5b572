// The columns several reconciliation tables show the same way.
import { Money, type ColumnDef } from '../../ui/index.js';
import { formatDateTime } from '../../ui/format.js';
import { statusLabel } from '../../ui/status.js';
import { SOURCE_LABEL } from './labels.js';

type Column<T> = ColumnDef<T, unknown>;

/** The merchant reference, in monospace. */
export function referenceColumn<T extends { merchantReference: string }>(): Column<T> {
  return {
    id: 'reference',
    header: 'Reference',
    accessorFn: (r) => r.merchantReference,
    cell: (c) => <span className="mono">{c.row.original.merchantReference}</span>,
  };
}

/** A moment in the app's one date-time format. */
export function timeColumn<T>(id: string, header: string, at: (row: T) => string | number): Column<T> {
  return { id, header, accessorFn: at, cell: (c) => formatDateTime(at(c.row.original)) };
}

/** The amount in its currency; a dash when the source named none. */
export function amountColumn<T extends { amountMinor: number | null; currency: string | null }>(): Column<T> {
  return {
    id: 'amount',
    header: 'Amount',
    accessorFn: (r) => r.amountMinor,
    meta: { className: 'num' },
    cell: (c) =>
      c.row.original.amountMinor === null ? (
        '—'
      ) : (
        <Money minor={c.row.original.amountMinor} currency={c.row.original.currency ?? ''} />
      ),
  };
}

/** Where an event came from, in words. */
export function sourceColumn<T extends { source: string }>(): Column<T> {
  return {
    id: 'source',
    header: 'Source',
    accessorFn: (r) => r.source,
    cell: (c) => SOURCE_LABEL[c.row.original.source] ?? c.row.original.source,
  };
}

/** The status a source reported, in words. */
export function statusColumn<T extends { status: string | null }>(): Column<T> {
  return {
    id: 'status',
    header: 'Status',
    accessorFn: (r) => r.status,
    cell: (c) => statusLabel(c.row.original.status),
  };
}
