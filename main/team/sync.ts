// MINIMAL STAND-IN (replaced at the merge by the real sync.ts): pulls the team log on a timer and
// applies each event to this desktop's SQLite with appendEvent (idempotent by its event key). It keeps
// its position in memory only and makes no collection from a remote intent; the real sync does both.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../collections/events.js';
import type { EventKind } from '../collections/model.js';
import { pullSince } from './events.js';

export interface TeamSyncStatus {
  online: boolean;
  lastSeq: number;
  lastPullAt: number | null;
  error: string | null;
}

export interface TeamSync {
  pullNow(): Promise<number>;
  status(): TeamSyncStatus;
  onStatus(cb: (s: TeamSyncStatus) => void): () => void;
  close(): Promise<void>;
}

export function startTeamSync(o: {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  logger: Logger;
  onApplied?: (changed: { id: number; reference: string; status: string }[]) => void;
  pollEveryMs?: number;
  batchSize?: number;
}): TeamSync {
  let status: TeamSyncStatus = { online: false, lastSeq: 0, lastPullAt: null, error: null };
  const listeners = new Set<(s: TeamSyncStatus) => void>();
  let closed = false;
  let running: Promise<number> | null = null;

  const set = (next: TeamSyncStatus) => {
    const changed = next.online !== status.online || next.error !== status.error;
    status = next;
    if (changed) for (const l of [...listeners]) l(status);
  };

  async function pull(): Promise<number> {
    let applied = 0;
    try {
      for (;;) {
        const r = await pullSince(o.pool, status.lastSeq, o.batchSize ?? 1000);
        const changed: { id: number; reference: string; status: string }[] = [];
        for (const ev of r.events) {
          const local = o.db
            .prepare('SELECT id FROM collections WHERE merchant_reference = ?')
            .get(ev.merchantReference) as { id: number } | undefined;
          const res = appendEvent(o.db, {
            collectionId: local?.id ?? null,
            merchantReference: ev.merchantReference,
            internalReference: ev.internalReference,
            source: ev.source,
            kind: ev.kind as EventKind,
            status: ev.status,
            receivedAt: ev.occurredAt,
            signature: ev.signature,
            amountMinor: ev.amountMinor,
            currency: ev.currency,
            dedupeKey: ev.eventKey,
            payload: ev.payload,
            note: ev.note,
            actor: ev.actor,
          });
          if (res.inserted) applied++;
          if (res.statusChanged && local && res.status)
            changed.push({ id: local.id, reference: ev.merchantReference, status: res.status });
        }
        set({ online: true, lastSeq: r.lastSeq, lastPullAt: o.clock.now(), error: null });
        if (changed.length) o.onApplied?.(changed);
        if (!r.more) return applied;
      }
    } catch (e) {
      set({ ...status, online: false, error: (e as Error).message });
      throw e;
    }
  }

  const pullNow = () => (running ??= pull().finally(() => (running = null)));
  const tick = () => {
    if (!closed) pullNow().catch((e: unknown) => o.logger.debug({ err: e }, 'team pull failed'));
  };
  const timer = setInterval(tick, o.pollEveryMs ?? 1000);
  timer.unref();
  tick();

  return {
    pullNow,
    status: () => status,
    onStatus(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
