// The columns several reconciliation tables show the same way, in the person's language and formats.
import { Money, type ColumnDef } from '../../ui/index.js';
import { statusLabel } from '../../ui/status.js';
import type { Say } from '../../words/index.js';
import { sourceLabel } from './labels.js';

type Column<T> = ColumnDef<T, unknown>;
type Words = Pick<Say, 't' | 'f'>;

/** The merchant reference, in monospace (data: translate="no"). */
export function referenceColumn<T extends { merchantReference: string }>({ t }: Words): Column<T> {
  return {
    id: 'reference',
    header: t('recon.col.reference'),
    accessorFn: (r) => r.merchantReference,
    meta: { data: true },
    cell: (c) => <span className="mono">{c.row.original.merchantReference}</span>,
  };
}

/** A moment in the app's one date-time format, in the person's locale. */
export function timeColumn<T>({ f }: Words, id: string, header: string, at: (row: T) => string | number): Column<T> {
  return { id, header, accessorFn: at, cell: (c) => f.dateTime(at(c.row.original)) };
}

/** The amount in its currency; a dash when the source named none. */
export function amountColumn<T extends { amountMinor: number | null; currency: string | null }>({
  t,
}: Words): Column<T> {
  return {
    id: 'amount',
    header: t('recon.col.amount'),
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
export function sourceColumn<T extends { source: string }>({ t }: Words): Column<T> {
  return {
    id: 'source',
    header: t('recon.col.source'),
    accessorFn: (r) => r.source,
    cell: (c) => sourceLabel(t, c.row.original.source),
  };
}

/** The status a source reported, in words. */
export function statusColumn<T extends { status: string | null }>({ t }: Words): Column<T> {
  return {
    id: 'status',
    header: t('recon.col.status'),
    accessorFn: (r) => r.status,
    cell: (c) => statusLabel(t, c.row.original.status),
  };
}
