// Collections: every card collection with what each source said, filtered and sorted in main (server-side
// pages through collections.list, so a year of history stays fast), a virtualised table, a detail view
// with the event timeline, and the "Import callbacks" button.
import { useMemo, useState } from 'react';
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { ErrorBanner, Loading, Money, Screen, Table, type ColumnDef } from '../../ui/index.js';
import { Flags, SignatureBeingChecked, StatusBadge } from '../../ui/StatusBadge.js';
import { useWords, type Say } from '../../words/index.js';
import { CollectionDetail } from './Detail.js';
import { CollectionFilters } from './CollectionFilters.js';
import { useCallbackImport } from './ImportCallbacks.js';
import { SourcesAgree } from './Sources.js';
import { useCollectionList } from './useCollectionList.js';
import './collections.css';

const columnsFor = ({ t, f }: Pick<Say, 't' | 'f'>): ColumnDef<CollectionRow>[] => [
  {
    id: 'reference',
    header: t('collections.col.reference'),
    accessorFn: (c) => c.merchantReference,
    meta: { data: true },
    cell: ({ row: { original: c } }) => <span className="mono">{c.merchantReference}</span>,
  },
  {
    id: 'created_at',
    header: t('collections.col.created'),
    accessorFn: (c) => c.createdAt,
    cell: ({ row: { original: c } }) => (
      <time dateTime={new Date(c.createdAt).toISOString()}>{f.dateTime(c.createdAt)}</time>
    ),
  },
  {
    id: 'amount',
    // Amounts of different currencies are not comparable: main sorts them within each currency.
    header: () => <span title={t('collections.col.amountSort')}>{t('collections.col.amount')}</span>,
    accessorFn: (c) => c.amountMinor,
    meta: { className: 'num' },
    cell: ({ row: { original: c } }) => <Money minor={c.amountMinor} currency={c.currency} code={false} />,
  },
  { id: 'currency', header: t('collections.col.currency'), accessorFn: (c) => c.currency, meta: { data: true } },
  {
    id: 'customer',
    header: t('collections.col.customer'),
    accessorFn: (c) => c.customerName ?? '',
    meta: { data: true },
    cell: ({ row: { original: c } }) => c.customerName ?? <span className="as-of">—</span>,
  },
  {
    id: 'status',
    header: t('collections.col.status'),
    accessorFn: (c) => c.status,
    cell: ({ row: { original: c } }) => (
      <>
        <StatusBadge status={c.status} /> <SignatureBeingChecked checking={c.signatureBeingChecked} />
      </>
    ),
  },
  {
    id: 'sources',
    header: t('collections.col.sources'),
    enableSorting: false,
    cell: ({ row: { original: c } }) => <SourcesAgree c={c} />,
  },
  {
    id: 'flags',
    header: t('collections.col.flags'),
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
  const { t, f } = useWords();
  const columns = useMemo(() => columnsFor({ t, f }), [t, f]);

  return (
    <Screen title={t('app.screen.collections')} actions={imports.button}>
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
          title={t('collections.readFailed')}
          action={<button onClick={pages.refresh}>{t('ui.retry')}</button>}
        />
        {pages.total === undefined && pages.busy ? (
          <Loading text={t('collections.loading')} />
        ) : (
          <Table
            label={t('collections.table')}
            columns={columns}
            data={pages.rows}
            getRowId={(c) => String(c.id)}
            sorting={sorting}
            onSortingChange={list.setSorting}
            manualSorting
            height={560}
            onRowClick={(c) => setSelected(c.id)}
            onNearEnd={pages.more}
            empty={t(
              // A read that failed found nothing to say about what there is (the banner above says why).
              pages.error && pages.total === undefined
                ? 'collections.unreadable'
                : list.filtered
                  ? 'collections.noMatch'
                  : 'collections.none',
            )}
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
  const { t } = useWords();
  return (
    <p className="count" role="status" aria-live="polite" data-testid="collections-count">
      {total === undefined
        ? ''
        : t(filtered ? 'collections.countMatch' : 'collections.count', { total }) +
          (loaded < total ? ` ${t('collections.countLoaded', { loaded })}` : '')}
      {amountSortNote && <span data-testid="amount-sort-note"> {t('collections.amountSortNote')}</span>}
      {busy && <span className="as-of"> {t('collections.loadingMore')}</span>}
    </p>
  );
}
