// The desk's LISTEN connection (team/listen.ts) and the proof that notifications arrive on it
// (notify-probe.ts): a notification of a seq past the desk's wakes the scheduler on the beat; an
// operator's row changed is told; a connection that failed is replaced, and the pull that follows covers
// what was written meanwhile. While notifications do not arrive, the periodic pull runs every second.
// While a pull is due on the beat, the desk stops hearing about new events (hold), and hears again
// before that pull reads (resume): a busy team notifies once per commit, a few hundred times a second,
// and each notification cost the desk about 75 µs of CPU to receive for nothing (bench:follow,
// docs/benchmarks.md); what is committed meanwhile is in the pull, which reads after PostgreSQL listens
// again.
import type pg from 'pg';
import { listen, type Listener } from '../listen.js';
import { poolTls } from '../pool.js';
import { notifyProbe } from './notify-probe.js';
import type { SyncNotices } from './notices.js';
import type { Scheduler } from './scheduler.js';
import type { SyncStatus } from './status.js';

export interface SyncListener {
  /** Connects, unless connected or connecting (after each successful pull: a lost connection comes back). */
  connect(): Promise<void>;
  /** A pull is due: stop hearing about new events until resume() (the connection's Listener.hold). */
  hold(): void;
  /** Hear about new events again; resolves once PostgreSQL listens (at once when not held or not connected). */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface SyncListenerOptions {
  pool: pg.Pool;
  now: () => number;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  status: SyncStatus;
  scheduler: Scheduler;
  notices: SyncNotices;
  /** The periodic pull while notifications arrive, and while they do not. */
  pullEveryMs: number;
  pullWithoutNotificationsMs: number;
}

export function createSyncListener(o: SyncListenerOptions): SyncListener {
  const url = o.pool.options.connectionString;
  let listener: Listener | null = null;
  let connecting = false;
  let closed = false;

  const drop = (): void => {
    const dead = listener;
    listener = null;
    void dead?.close();
  };

  const probe = notifyProbe({
    pool: o.pool,
    now: o.now,
    logger: o.logger,
    relisten() {
      drop();
      void connect();
    },
    onVerdict(arriving, at) {
      const pullEveryMs = arriving ? o.pullEveryMs : o.pullWithoutNotificationsMs;
      o.status.set({ notifications: { arriving, checkedAt: at, pullEveryMs } });
      const s = o.status.get();
      if (s.online && !s.error) o.scheduler.schedule(pullEveryMs);
    },
  });

  async function connect(): Promise<void> {
    if (closed || listener || connecting || !url) return;
    connecting = true;
    try {
      const l = await listen(
        url,
        (seq) => {
          if (seq > o.status.get().lastSeq) o.scheduler.wake();
        },
        {
          onError: (err) => {
            o.logger.warn({ err }, 'team sync: the notification connection failed; reconnecting');
            probe.notListening();
            drop();
            void o.scheduler.trigger(); // its success reconnects; its failure backs off
          },
          tls: poolTls(o.pool),
          ...(o.notices.hearsOperators ? { onOperator: (login: string) => o.notices.operatorChanged(login) } : {}),
          probe: { channel: probe.channel, heard: (token) => probe.heard(token) },
        },
      );
      if (closed) await l.close();
      else {
        listener = l;
        probe.listening();
        void o.scheduler.trigger(); // what was written while nobody listened
        if (o.notices.hearsOperators) o.notices.operatorChanged(null); // and what changed meanwhile
      }
    } catch (e) {
      o.logger.warn({ err: e }, 'team sync: cannot listen for new events yet');
    } finally {
      connecting = false;
    }
  }

  if (!url) o.logger.warn({}, 'team sync: the pool has no connection URL, so no notifications: pulling every period');
  return {
    connect,
    hold: () => listener?.hold(),
    resume: async () => listener?.resume(),
    async close() {
      closed = true;
      probe.close();
      const l = listener;
      listener = null;
      await l?.close();
    },
  };
}
