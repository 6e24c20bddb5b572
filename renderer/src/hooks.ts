// Loading / error / stale states for every screen, the same way everywhere.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChannelName, DeskEventName, DeskEvents, RequestOf, ResponseOf } from '../../main/ipc/contract/index.js';
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
  return e instanceof DeskError ? e : new DeskError({ kind: 'internal', message: 'Something went wrong; the details are in the log.' });
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

  return { data, error, loading: busy && data === undefined, busy, reload };
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
