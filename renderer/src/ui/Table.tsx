// A virtualised, sortable table (TanStack Table + Virtual) rendered as a real <table>, so screen
// readers and tests see rows and cells. Only the visible rows are in the DOM; spacer rows keep the
// scroll height. For server-side paging/sorting pass `manualSorting` and handle `onSortingChange`.
import { useRef, useState, type ReactNode, type RefObject } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type Header,
  type OnChangeFn,
  type Row,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useWords } from '../words/index.js';

export type { ColumnDef, SortingState } from '@tanstack/react-table';

export interface TableProps<T> {
  /** Accessible name of the table. */
  label: string;
  /** Extra class on the <table> (screen-specific column styles). */
  className?: string;
  columns: ColumnDef<T, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  data: T[];
  getRowId?: (row: T, index: number) => string;
  /** Shown instead of rows when data is empty. */
  empty?: ReactNode;
  /** Pixel height of the scroll area (default 480). */
  height?: number;
  rowHeight?: number;
  onRowClick?: (row: T) => void;
  /** Controlled sorting (server-side); omit for client-side sorting. */
  sorting?: SortingState;
  onSortingChange?: OnChangeFn<SortingState>;
  manualSorting?: boolean;
  /** Called when the last rendered row is near the end (load the next page). */
  onNearEnd?: () => void;
}

export function Table<T>(props: TableProps<T>) {
  const { columns, data, label, rowHeight = 34, height = 480 } = props;
  const { t } = useWords();
  const [localSorting, setLocalSorting] = useState<SortingState>([]);
  const sorting = props.sorting ?? localSorting;
  // TanStack Table returns functions the React Compiler cannot memoise; that is expected.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data,
    columns,
    state: { sorting },
    onSortingChange: props.onSortingChange ?? setLocalSorting,
    manualSorting: props.manualSorting ?? false,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    ...(props.getRowId ? { getRowId: props.getRowId } : {}),
  });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { items, padTop, padBottom } = useVirtualRows(rows.length, scrollRef, rowHeight, props.onNearEnd);
  const colCount = table.getVisibleLeafColumns().length;

  return (
    <div
      className="table-scroll"
      ref={scrollRef}
      style={{ maxHeight: height }}
      tabIndex={0}
      role="region"
      aria-label={t('ui.table.scrollable', { label })}
    >
      <table
        className={props.className ? `table ${props.className}` : 'table'}
        aria-label={label}
        aria-rowcount={rows.length + 1}
      >
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => (
                <HeaderCell key={h.id} header={h} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={colCount} className="table-empty">
                {props.empty ?? t('ui.table.empty')}
              </td>
            </tr>
          ) : (
            <>
              <SpacerRow height={padTop} colSpan={colCount} />
              {items.map((vi) => {
                const row = rows[vi.index]!;
                return (
                  <BodyRow key={row.id} row={row} index={vi.index} height={rowHeight} onClick={props.onRowClick} />
                );
              })}
              <SpacerRow height={padBottom} colSpan={colCount} />
            </>
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The rows in view (with some either side) and the space the others take above and below them; near the
 * end, `onNearEnd` (the next page).
 */
function useVirtualRows(
  count: number,
  scrollRef: RefObject<HTMLDivElement | null>,
  rowHeight: number,
  onNearEnd: (() => void) | undefined,
) {
  // TanStack Virtual, like TanStack Table, returns functions the React Compiler cannot memoise.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0]!.start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  const last = items[items.length - 1];
  if (onNearEnd && last && last.index >= count - 20) queueMicrotask(onNearEnd);
  return { items, padTop, padBottom };
}

/**
 * A column of data as it came (references, names, codes: `meta.data`): its cells are marked
 * translate="no", so neither a translator nor the catalogue's test takes them for words.
 */
function isData(column: { columnDef: { meta?: unknown } }): boolean {
  return (column.columnDef.meta as { data?: boolean } | undefined)?.data === true;
}

/** A column's own class (`meta.className`), on its header and its cells. */
function columnClass<T>(column: Column<T, unknown>): string | undefined {
  return (column.columnDef.meta as { className?: string } | undefined)?.className;
}

/** A column header: a button that sorts by it when it can, with the direction shown and announced. */
function HeaderCell<T>({ header: h }: { header: Header<T, unknown> }) {
  const sortable = h.column.getCanSort();
  const dir = h.column.getIsSorted();
  return (
    <th
      scope="col"
      aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
      className={columnClass(h.column)}
    >
      {h.isPlaceholder ? null : sortable ? (
        <button type="button" className="th-sort" onClick={h.column.getToggleSortingHandler()}>
          {flexRender(h.column.columnDef.header, h.getContext())}
          <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}</span>
        </button>
      ) : (
        flexRender(h.column.columnDef.header, h.getContext())
      )}
    </th>
  );
}

/** One row; with `onClick`, it opens with a click or Enter. */
function BodyRow<T>({
  row,
  index,
  height,
  onClick,
}: {
  row: Row<T>;
  index: number;
  height: number;
  onClick: ((row: T) => void) | undefined;
}) {
  return (
    <tr
      aria-rowindex={index + 2}
      style={{ height }}
      className={onClick ? 'clickable' : undefined}
      onClick={onClick ? () => onClick(row.original) : undefined}
      onKeyDown={
        onClick
          ? (e) => {
              if (e.key === 'Enter') onClick(row.original);
            }
          : undefined
      }
      tabIndex={onClick ? 0 : undefined}
    >
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className={columnClass(cell.column)} translate={isData(cell.column) ? 'no' : undefined}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
}

/** The height of the rows not drawn (none: nothing). */
function SpacerRow({ height, colSpan }: { height: number; colSpan: number }) {
  if (height <= 0) return null;
  return (
    <tr aria-hidden="true" className="spacer">
      <td colSpan={colSpan} style={{ height }} />
    </tr>
  );
}
