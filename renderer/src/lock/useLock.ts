// The renderer's side of the idle lock. Main decides when the app is locked (the renderer cannot keep
// it open); here we follow its 'lock.changed' push, report input as activity at most every 30 s, and
// bind Ctrl+Shift+L to "Lock now".
import { useCallback, useEffect, useRef, useState } from 'react';
import type { LockStatus } from '../../../main/ipc/contract/lock.js';
import { invoke, on } from '../desk.js';

/** Input is reported at most this often; main's idle time is at least a minute (seconds only in tests). */
const ACTIVITY_EVERY_MS = 30_000;

const INPUT_EVENTS = ['keydown', 'pointerdown', 'pointermove', 'wheel', 'touchstart'] as const;

export function useLock(): { status: LockStatus | undefined; locked: boolean; setStatus: (s: LockStatus) => void } {
  const [status, setStatus] = useState<LockStatus>();
  const [locked, setLocked] = useState(false);
  const lastReport = useRef(0);

  const refresh = useCallback(async () => {
    try {
      const s = await invoke('lock.status', {});
      setStatus(s);
      setLocked(s.locked);
    } catch {
      /* main answers lock.status even while locked; a failure here leaves the last known state */
    }
  }, []);

  useEffect(() => {
    // Asked a tick later, as useDeskQuery does: a renderer reloaded while main is locked shows the lock screen.
    const t = setTimeout(() => void refresh(), 0);
    const off = on('lock.changed', (e) => {
      setLocked(e.locked);
      lastReport.current = 0;
      void refresh();
    });
    return () => {
      clearTimeout(t);
      off();
    };
  }, [refresh]);

  useEffect(() => {
    if (locked) return;
    const onInput = () => {
      const now = Date.now();
      if (now - lastReport.current < ACTIVITY_EVERY_MS) return;
      lastReport.current = now;
      invoke('lock.activity', {}).catch(() => {
        /* refused because main has just locked: the lock.changed push follows */
      });
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey && e.code === 'KeyL') {
        e.preventDefault();
        void lockNow().then((s) => s && (setStatus(s), setLocked(true)));
      }
    };
    for (const ev of INPUT_EVENTS) window.addEventListener(ev, onInput, { capture: true, passive: true });
    window.addEventListener('keydown', onKey);
    return () => {
      for (const ev of INPUT_EVENTS) window.removeEventListener(ev, onInput, { capture: true });
      window.removeEventListener('keydown', onKey);
    };
  }, [locked]);

  const set = useCallback((s: LockStatus) => {
    setStatus(s);
    setLocked(s.locked);
  }, []);
  return { status, locked, setStatus: set };
}

/** Locks the app now (the status bar button, Ctrl+Shift+L). */
export async function lockNow(): Promise<LockStatus | undefined> {
  try {
    return await invoke('lock.lockNow', {});
  } catch {
    return undefined;
  }
}
