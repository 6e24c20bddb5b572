// A virtualised, sortable table (TanStack Table + Virtual) rendered as a real <table>, so screen
// readers and tests see rows and cells. Only the visible rows are in the DOM; spacer rows keep the
// scroll height. For server-side paging/sorting pass `manualSorting` and handle `onSortingChange`.
import { useRef, useState, type ReactNode } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type OnChangeFn,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';

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
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0]!.start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  const last = items[items.length - 1];
  if (props.onNearEnd && last && last.index >= rows.length - 20) queueMicrotask(props.onNearEnd);
  const colCount = table.getVisibleLeafColumns().length;

  return (
    <div
      className="table-scroll"
      ref={scrollRef}
      style={{ maxHeight: height }}
      tabIndex={0}
      role="region"
      aria-label={`${label} (scrollable)`}
    >
      <table
        className={props.className ? `table ${props.className}` : 'table'}
        aria-label={label}
        aria-rowcount={rows.length + 1}
      >
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const sortable = h.column.getCanSort();
                const dir = h.column.getIsSorted();
                return (
                  <th
                    key={h.id}
                    scope="col"
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                    className={(h.column.columnDef.meta as { className?: string } | undefined)?.className}
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
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={colCount} className="table-empty">
                {props.empty ?? 'Nothing to show.'}
              </td>
            </tr>
          ) : (
            <>
              {padTop > 0 && (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={colCount} style={{ height: padTop }} />
                </tr>
              )}
              {items.map((vi) => {
                const row = rows[vi.index]!;
                return (
                  <tr
                    key={row.id}
                    aria-rowindex={vi.index + 2}
                    style={{ height: rowHeight }}
                    className={props.onRowClick ? 'clickable' : undefined}
                    onClick={props.onRowClick ? () => props.onRowClick!(row.original) : undefined}
                    onKeyDown={
                      props.onRowClick
                        ? (e) => {
                            if (e.key === 'Enter') props.onRowClick!(row.original);
                          }
                        : undefined
                    }
                    tabIndex={props.onRowClick ? 0 : undefined}
                  >
                    {row.getVisibleCells().map((cell) => (
                      <td
                        key={cell.id}
                        className={(cell.column.columnDef.meta as { className?: string } | undefined)?.className}
                      >
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </td>
                    ))}
                  </tr>
                );
              })}
              {padBottom > 0 && (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={colCount} style={{ height: padBottom }} />
                </tr>
              )}
            </>
          )}
        </tbody>
      </table>
    </div>
  );
}
