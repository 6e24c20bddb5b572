// Loading / error / stale states for every screen, the same way everywhere.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChannelName, DeskEventName, DeskEvents, RequestOf, ResponseOf } from '../../main/ipc/contract/index.js';
import type { AppStatus } from '../../main/ipc/contract/app.js';
import { DeskError, invoke, on, windowFault } from './desk.js';
import { concerns, createRereadGate, personIsBusy, type Shows } from './reread.js';

/** What makes a screen read its data again after main says something changed. */
export interface RefreshOptions {
  /** The pushes that may change what the screen shows. */
  refreshOn?: DeskEventName[];
  /**
   * Whether a change to this collection could change what the screen shows (its rows, or rows that could
   * join them); without it every change of `refreshOn` does. A push naming none of them reads nothing.
   */
  shows?: Shows;
}

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
  return e instanceof DeskError ? e : windowFault('reading');
}

/**
 * Re-reads through `reread` when one of `refreshOn` arrives and concerns what the screen shows
 * (reread.ts): one read in flight and one after it however many arrive, none while the person types in
 * a field or has a dialog open (then once they stop). Every screen's pushed re-reads go through here.
 */
function useRefreshOn(reread: () => Promise<unknown>, options: RefreshOptions, enabled = true): void {
  const run = useRef(reread);
  const shows = useRef(options.shows);
  useEffect(() => {
    run.current = reread;
    shows.current = options.shows;
  });
  const events = (options.refreshOn ?? []).join(',');
  useEffect(() => {
    if (!events || !enabled) return;
    const gate = createRereadGate({ run: () => run.current(), held: personIsBusy });
    const offs = events.split(',').map((ev) =>
      on(ev as DeskEventName, (payload) => {
        if (concerns(ev as DeskEventName, payload, shows.current)) gate.request();
      }),
    );
    return () => {
      offs.forEach((off) => off());
      gate.dispose();
    };
  }, [events, enabled]);
}

/**
 * Calls `channel` with `request` on mount and when the request changes (compared as JSON), and again when
 * `refreshOn` events that concern what it shows arrive (useRefreshOn). Out-of-order answers are dropped.
 */
export function useDeskQuery<K extends ChannelName>(
  channel: K,
  request: RequestOf<K>,
  options: RefreshOptions & { enabled?: boolean } = {},
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

  useRefreshOn(reload, options, enabled);
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

/** What one call of an action may add. */
export interface RunOptions {
  /**
   * Told of this call's failure even when the component that made it is gone by the answer (its error
   * state then shows nowhere): e.g. a form the team's change removed while its call was on the way.
   */
  onError?: (e: DeskError) => void;
}

/** A call that changes something (a form submit, a refresh button). */
export function useDeskAction<K extends ChannelName>(channel: K) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<DeskError>();
  const run = useCallback(
    async (request: RequestOf<K>, o: RunOptions = {}): Promise<ResponseOf<K> | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await invoke(channel, request);
      } catch (e) {
        const err = toDeskError(e);
        setError(err);
        o.onError?.(err);
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
 * near its end), and `refresh()` re-reads what is loaded (at least a page, at most 1,000 rows), as
 * `refreshOn` events that concern what it shows do (useRefreshOn). `extra` is the newest answer without
 * its rows (e.g. counts beside the list).
 */
export function usePagedQuery<K extends ChannelName, Row>(
  channel: K,
  request: RequestOf<K>,
  pageSize = 200,
  options: RefreshOptions = {},
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

  const reread = useCallback(() => load(0, Math.min(1000, Math.max(pageSize, loaded.current)), true), [load, pageSize]);
  const refresh = useCallback(() => void reread(), [reread]);
  useRefreshOn(reread, options);
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

/**
 * One value taken from the status (the role, whether the app is starting), kept current by main's
 * pushes. The component re-renders only when that value changes: a desk following a busy team has its
 * status pushed a few times a second, and a screen that re-rendered on each (Balances with its chart)
 * kept the window busy for nothing. `select` should return a primitive (compared with Object.is).
 */
export function useAppStatusSelect<T>(select: (s: AppStatus | undefined) => T): T {
  const q = useDeskQuery('app.status', {});
  const [pushed, setPushed] = useState<{ value: T } | null>(null);
  useDeskEvent('app.status', (s) => {
    const value = select(s);
    setPushed((prev) => (prev && Object.is(prev.value, value) ? prev : { value }));
  });
  return pushed ? pushed.value : select(q.data);
}

/** What the status bar shows (app.status), kept current by main's pushes; undefined until the first answer. */
export function useAppStatus(): { status: AppStatus | undefined; error: DeskError | undefined } {
  const q = useDeskQuery('app.status', {});
  const [pushed, setPushed] = useState<AppStatus>();
  useDeskEvent('app.status', setPushed);
  return { status: pushed ?? q.data, error: q.error };
}
