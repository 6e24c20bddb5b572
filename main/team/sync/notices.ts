// What the screens are told about the sync's work behind them: the collections a pulled batch changed,
// the orphans it stored, a bulk copy or a re-base (read everything again), a balances or options poll, an
// operator's row. One notice per pull, at most one per beat (scheduler.ts) while a desk drains a backlog
// batch after batch: the beat is the one pacing between a pulled batch and the screens, so the window's
// push forwards these at once (ipc/push.ts). A watcher that throws is logged and never stops the sync.
import type { ChangedCollection } from './apply.js';

export interface SyncNoticeWatchers {
  onApplied?: ((changed: ChangedCollection[]) => void) | undefined;
  onOrphans?: ((stored: number) => void) | undefined;
  onCopied?: ((applied: number, from: 'snapshot' | 'replay') => void) | undefined;
  onPolled?: ((what: 'balances' | 'options', changed: number) => void) | undefined;
  onOperatorChanged?: ((login: string | null) => void) | undefined;
}

export interface SyncNotices {
  /** A batch was applied: what it changed, told now or merged into the next beat's notice. */
  applied(changed: readonly ChangedCollection[], orphans: number): void;
  /** The pull is over: whatever waits is told now. */
  flush(): void;
  copied(applied: number, from: 'snapshot' | 'replay'): void;
  polled(what: 'balances' | 'options', changed: number): void;
  operatorChanged(login: string | null): void;
  /** Whether anyone hears about operators (the listener then listens for them). */
  readonly hearsOperators: boolean;
}

export function createSyncNotices(
  w: SyncNoticeWatchers,
  o: { beatMs: number; logger: { warn(obj: object, msg?: string): void }; now?: () => number },
): SyncNotices {
  const now = o.now ?? (() => performance.now());
  const tell = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      o.logger.warn({ err: e }, 'team sync: a watcher failed');
    }
  };
  /** What waits for the next beat: each collection once, with its newest status. */
  const waiting = new Map<number, ChangedCollection>();
  let orphans = 0;
  let toldAt = -Infinity;
  const flush = (): void => {
    toldAt = now();
    if (waiting.size && w.onApplied) {
      const changed = [...waiting.values()];
      tell(() => w.onApplied!(changed));
    }
    if (orphans && w.onOrphans) {
      const n = orphans;
      tell(() => w.onOrphans!(n));
    }
    waiting.clear();
    orphans = 0;
  };
  return {
    applied(changed, stored) {
      for (const c of changed) {
        waiting.delete(c.id);
        waiting.set(c.id, c);
      }
      orphans += stored;
      if (now() - toldAt >= o.beatMs) flush();
    },
    flush() {
      if (waiting.size || orphans) flush();
    },
    copied: (applied, from) => tell(() => w.onCopied?.(applied, from)),
    polled: (what, changed) => tell(() => w.onPolled?.(what, changed)),
    operatorChanged: (login) => tell(() => w.onOperatorChanged?.(login)),
    hearsOperators: !!w.onOperatorChanged,
  };
}
