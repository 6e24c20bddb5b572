// Collections: every card collection with what each source said, filtered and sorted in main (server-side
// pages through collections.list, so a year of history stays fast), a virtualised table, a detail view
// with the event timeline, and the "Import callbacks" button.
import { useState } from 'react';
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { ErrorBanner, Loading, Money, Screen, Table, type ColumnDef } from '../../ui/index.js';
import { Flags, SignatureBeingChecked, StatusBadge } from '../../ui/StatusBadge.js';
import { formatDateTime } from '../../ui/format.js';
import { CollectionDetail } from './Detail.js';
import { CollectionFilters } from './CollectionFilters.js';
import { useCallbackImport } from './ImportCallbacks.js';
import { SourcesAgree } from './Sources.js';
import { useCollectionList } from './useCollectionList.js';
import './collections.css';

const columns: ColumnDef<CollectionRow>[] = [
  {
    id: 'reference',
    header: 'Reference',
    accessorFn: (c) => c.merchantReference,
    cell: ({ row: { original: c } }) => <span className="mono">{c.merchantReference}</span>,
  },
  {
    id: 'created_at',
    header: 'Created',
    accessorFn: (c) => c.createdAt,
    cell: ({ row: { original: c } }) => (
      <time dateTime={new Date(c.createdAt).toISOString()}>{formatDateTime(c.createdAt)}</time>
    ),
  },
  {
    id: 'amount',
    // Amounts of different currencies are not comparable: main sorts them within each currency.
    header: () => <span title="Sorted within each currency: by currency, then amount">Amount</span>,
    accessorFn: (c) => c.amountMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: c } }) => <Money minor={c.amountMinor} currency={c.currency} code={false} />,
  },
  { id: 'currency', header: 'Currency', accessorFn: (c) => c.currency },
  {
    id: 'customer',
    header: 'Customer',
    accessorFn: (c) => c.customerName ?? '',
    cell: ({ row: { original: c } }) => c.customerName ?? <span className="as-of">—</span>,
  },
  {
    id: 'status',
    header: 'Status',
    accessorFn: (c) => c.status,
    cell: ({ row: { original: c } }) => (
      <>
        <StatusBadge status={c.status} /> <SignatureBeingChecked checking={c.signatureBeingChecked} />
      </>
    ),
  },
  {
    id: 'sources',
    header: 'Sources agree',
    enableSorting: false,
    cell: ({ row: { original: c } }) => <SourcesAgree c={c} />,
  },
  {
    id: 'flags',
    header: 'Flags',
    enableSorting: false,
    // An event the team database refused is kept on this desk only: the list says so (the detail says why).
    cell: ({ row: { original: c } }) => (
      <Flags flags={c.teamRefused ? [...c.flags, 'not_accepted_by_team'] : c.flags} />
    ),
  },
];

export function CollectionsScreen() {
  const list = useCollectionList();
  const { pages, sorting } = list;
  const [selected, setSelected] = useState<number | null>(null);
  const imports = useCallbackImport();

  return (
    <Screen title="Collections" actions={imports.button}>
      {imports.result}
      <div hidden={selected !== null}>
        <CollectionFilters list={list} />
        <ListCount
          total={pages.total}
          loaded={pages.rows.length}
          filtered={list.filtered}
          amountSortNote={sorting[0]?.id === 'amount' && !list.filters.currency}
          busy={pages.busy}
        />
        <ErrorBanner
          error={pages.error}
          title="Could not read the collections"
          action={<button onClick={pages.refresh}>Retry</button>}
        />
        {pages.total === undefined && pages.busy ? (
          <Loading what="collections" />
        ) : (
          <Table
            label="Collections"
            columns={columns}
            data={pages.rows}
            getRowId={(c) => String(c.id)}
            sorting={sorting}
            onSortingChange={list.setSorting}
            manualSorting
            height={560}
            onRowClick={(c) => setSelected(c.id)}
            onNearEnd={pages.more}
            empty={
              // A read that failed found nothing to say about what there is (the banner above says why).
              pages.error && pages.total === undefined
                ? 'The collections could not be read.'
                : list.filtered
                  ? 'No collection matches these filters.'
                  : 'No collections yet. Take a payment to see it here.'
            }
          />
        )}
      </div>
      {selected !== null && (
        <CollectionDetail
          id={selected}
          onBack={() => {
            setSelected(null);
            // Back where the agent was: the list (its scroll position and loaded pages were kept).
            setTimeout(() => document.querySelector<HTMLElement>('.table-scroll')?.focus(), 0);
          }}
        />
      )}
    </Screen>
  );
}

/** How many match (and how many are loaded), how amounts sort without a currency, and a read in progress. */
function ListCount({
  total,
  loaded,
  filtered,
  amountSortNote,
  busy,
}: {
  total: number | undefined;
  loaded: number;
  filtered: boolean;
  amountSortNote: boolean;
  busy: boolean;
}) {
  return (
    <p className="count" role="status" aria-live="polite" data-testid="collections-count">
      {total === undefined
        ? ''
        : `${total.toLocaleString()} ${total === 1 ? 'collection' : 'collections'}${filtered ? ' match' : ''}${
            loaded < total ? ` (${loaded.toLocaleString()} loaded)` : ''
          }`}
      {amountSortNote && <span data-testid="amount-sort-note"> · sorted by currency, then amount</span>}
      {busy && <span className="as-of"> · loading…</span>}
    </p>
  );
}
