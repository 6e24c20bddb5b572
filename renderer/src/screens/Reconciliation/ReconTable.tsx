// The table every reconciliation view is drawn with (the exceptions queue, unknown references, the
// audit, refused callbacks, balance movement): its titled section, an optional intro and filters, the
// read's error with Retry, "Loading…", then, once read, the empty state or the count and the virtualised
// table, and below them the view's own parts (the selected row's panel, totals).
import type { ReactNode } from 'react';
import type { DeskError } from '../../desk.js';
import { ErrorBanner, Loading, Table, type TableProps } from '../../ui/index.js';
import { useWords } from '../../words/index.js';

/** Where a view's read stands. */
export interface ReadState {
  error: DeskError | undefined;
  /** The first answer is awaited. */
  loading: boolean;
  retry: () => void;
}

/** A useDeskQuery read as a ReadState. */
export function queryRead(q: {
  error: DeskError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}): ReadState {
  return { error: q.error, loading: q.loading, retry: () => void q.reload() };
}

export function ReconTable<T>({
  titleId,
  title,
  intro,
  filters,
  read,
  errorTitle,
  loadingText,
  rows,
  empty,
  count,
  table,
  children,
}: {
  /** The heading's id, which names the section. */
  titleId: string;
  title: string;
  /** A line under the heading saying what the view lists. */
  intro?: string;
  filters?: ReactNode;
  read: ReadState;
  errorTitle: string;
  /** "Loading exceptions…", said whole. */
  loadingText: string;
  /** The rows read; undefined until the first answer. */
  rows?: T[] | undefined;
  /** Shown instead of the count and the table when no row was read (without it, the table says so). */
  empty?: ReactNode;
  /** Above the table. */
  count?: ReactNode;
  table?: Omit<TableProps<T>, 'data'>;
  children?: ReactNode;
}) {
  const { t } = useWords();
  return (
    <section aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {intro && <p className="as-of">{intro}</p>}
      {filters}
      <ErrorBanner
        error={read.error}
        title={errorTitle}
        action={<button onClick={read.retry}>{t('recon.retry')}</button>}
      />
      {read.loading && <Loading text={loadingText} />}
      {rows &&
        table &&
        (rows.length === 0 && empty ? (
          empty
        ) : (
          <>
            {count}
            <Table {...table} data={rows} />
          </>
        ))}
      {children}
    </section>
  );
}
