// Loading / error / stale states for every screen, the same way everywhere.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChannelName, DeskEventName, DeskEvents, RequestOf, ResponseOf } from '../../main/ipc/contract/index.js';
import type { AppStatus } from '../../main/ipc/contract/app.js';
import { DeskError, invoke, on } from './desk.js';

export interface QueryState<T> {
  /** The last good answer; kept while reloading and after an error (show it, marked stale). */
  data: T | undefined;
  /** The last failure, cleared by the next success. */
  error: DeskError | undefined;
  /** True while the first answer is awaited (no data yet). */
  loading: boolean;
  /** True while any request is in flight (including reloads). */
  busy: boolean;
  reload: () => Promise<void>;
}

function toDeskError(e: unknown): DeskError {
  return e instanceof DeskError
    ? e
    : new DeskError({ kind: 'internal', message: 'Something went wrong; the details are in the log.' });
}

/**
 * Calls `channel` with `request` on mount and when the request changes (compared as JSON), and again when
 * any of `refreshOn` events arrive. Out-of-order answers are dropped.
 */
export function useDeskQuery<K extends ChannelName>(
  channel: K,
  request: RequestOf<K>,
  options: { refreshOn?: DeskEventName[]; enabled?: boolean } = {},
): QueryState<ResponseOf<K>> {
  const [data, setData] = useState<ResponseOf<K>>();
  const [error, setError] = useState<DeskError>();
  const [busy, setBusy] = useState(false);
  const seq = useRef(0);
  const key = JSON.stringify(request ?? {});
  const enabled = options.enabled ?? true;

  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setBusy(true);
    try {
      const value = await invoke(channel, JSON.parse(key) as RequestOf<K>);
      if (mine !== seq.current) return;
      setData(value);
      setError(undefined);
    } catch (e) {
      if (mine !== seq.current) return;
      setError(toDeskError(e));
    } finally {
      if (mine === seq.current) setBusy(false);
    }
  }, [channel, key]);

  useEffect(() => {
    if (!enabled) return;
    // Deferred a tick: StrictMode's mount-unmount-mount then asks once, not twice.
    const t = setTimeout(() => void reload(), 0);
    return () => clearTimeout(t);
  }, [reload, enabled]);

  const events = (options.refreshOn ?? []).join(',');
  useEffect(() => {
    if (!events || !enabled) return;
    const offs = events.split(',').map((ev) => on(ev as DeskEventName, () => void reload()));
    return () => offs.forEach((off) => off());
  }, [events, reload, enabled]);

  useRefetchAfterUnlock(reload, enabled);

  return { data, error, loading: busy && data === undefined, busy, reload };
}

/** Reads again once the app is unlocked: calls made while it was locked (after a push) were refused. */
function useRefetchAfterUnlock(reload: () => unknown, enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    return on('lock.changed', (e) => {
      if (!e.locked) void reload();
    });
  }, [reload, enabled]);
}

/** A call that changes something (a form submit, a refresh button). */
export function useDeskAction<K extends ChannelName>(channel: K) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<DeskError>();
  const run = useCallback(
    async (request: RequestOf<K>): Promise<ResponseOf<K> | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await invoke(channel, request);
      } catch (e) {
        setError(toDeskError(e));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [channel],
  );
  return { run, pending, error, clearError: () => setError(undefined) };
}

/** Subscribes to a push event for the component's lifetime. */
export function useDeskEvent<E extends DeskEventName>(event: E, listener: (payload: DeskEvents[E]) => void): void {
  const ref = useRef(listener);
  useEffect(() => {
    ref.current = listener;
  });
  useEffect(() => on(event, (p) => ref.current(p)), [event]);
}

/** The current time, re-read every `everyMs` (for "2 min ago" labels). */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/**
 * Server-side pages of a list channel (answers `{ rows, total, ... }` for `offset`/`limit`): the first
 * page on mount and whenever the request changes, the next page on `more()` (a virtualised table calls it
 * near its end), and `refresh()` re-reads what is loaded (at least a page, at most 1,000 rows) after a
 * change in main. `extra` is the newest answer without its rows (e.g. counts beside the list).
 */
export function usePagedQuery<K extends ChannelName, Row>(
  channel: K,
  request: RequestOf<K>,
  pageSize = 200,
): {
  rows: Row[];
  total: number | undefined;
  extra: Omit<ResponseOf<K>, 'rows'> | undefined;
  error: DeskError | undefined;
  busy: boolean;
  refresh: () => void;
  more: () => void;
} {
  const [rows, setRows] = useState<Row[]>([]);
  const [extra, setExtra] = useState<Omit<ResponseOf<K>, 'rows'>>();
  const [total, setTotal] = useState<number | undefined>();
  const [error, setError] = useState<DeskError>();
  const [busy, setBusy] = useState(false);
  const seq = useRef(0);
  const loaded = useRef(0);
  const key = JSON.stringify(request ?? {});

  const load = useCallback(
    async (offset: number, limit: number, replace: boolean) => {
      const mine = ++seq.current;
      setBusy(true);
      try {
        const r = (await invoke(channel, {
          ...(JSON.parse(key) as object),
          offset,
          limit,
        } as RequestOf<K>)) as unknown as { rows: Row[]; total: number };
        if (mine !== seq.current) return;
        setRows((old) => {
          const next = replace ? r.rows : [...old.slice(0, offset), ...r.rows];
          loaded.current = next.length;
          return next;
        });
        const { rows: _rows, ...rest } = r;
        setExtra(rest as unknown as Omit<ResponseOf<K>, 'rows'>);
        setTotal(r.total);
        setError(undefined);
      } catch (e) {
        if (mine !== seq.current) return;
        setError(toDeskError(e));
      } finally {
        if (mine === seq.current) setBusy(false);
      }
    },
    [channel, key],
  );

  // New filters or sort: start again from the first page.
  useEffect(() => {
    const t = setTimeout(() => void load(0, pageSize, true), 0);
    return () => clearTimeout(t);
  }, [load, pageSize]);

  const refresh = useCallback(
    () => void load(0, Math.min(1000, Math.max(pageSize, loaded.current)), true),
    [load, pageSize],
  );
  useRefetchAfterUnlock(refresh);
  const more = useCallback(() => {
    if (busy || total === undefined || loaded.current >= total) return;
    void load(loaded.current, pageSize, false);
  }, [busy, total, load, pageSize]);

  return { rows, total, extra, error, busy, refresh, more };
}

/**
 * useState kept in sessionStorage under `key`, so a screen's filters survive a re-mount (a full
 * reconciliation re-reads the lists) and a reload of the window. Only for plain filter values: never
 * card data or secrets.
 */
export function useSessionState<T>(key: string, initial: T): [T, (v: T | ((old: T) => T)) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const raw = sessionStorage.getItem(key);
      return raw === null ? initial : (JSON.parse(raw) as T);
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    try {
      sessionStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or unavailable: the filter still works for this view */
    }
  }, [key, value]);
  return [value, setValue];
}

/** What the status bar shows (app.status), kept current by main's pushes; undefined until the first answer. */
export function useAppStatus(): { status: AppStatus | undefined; error: DeskError | undefined } {
  const q = useDeskQuery('app.status', {});
  const [pushed, setPushed] = useState<AppStatus>();
  useDeskEvent('app.status', setPushed);
  return { status: pushed ?? q.data, error: q.error };
}
