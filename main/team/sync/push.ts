// The push side of the team record: sends a desk's outbox (collections/outbox.ts, written by the ledger
// in the same transaction as each event) until PostgreSQL has every event. team.events is idempotent by
// event key (ON CONFLICT DO NOTHING), so an entry whose key the database already holds (a send whose
// answer was lost, a restart after a crash) counts as taken.
//
// A lost connection (no SQLSTATE, ECONNRESET, 57P01 admin shutdown, class 08, the pool's connect
// timeout) or a sign-in the database no longer takes is an OUTAGE: the entries stay and are sent again,
// every second while the database is silent and with back-off after an answer (team/reconnect.ts).
// Only a refusal by the database itself (a SQLSTATE such as 42501 insufficient_privilege, 23514
// check_violation, 22xxx data exception) or by the event check before sending marks an entry refused
// (push-round.ts), with the reason: it stays on the desk, its collection says so (collections/query.ts), and it
// does not hold back the entries behind it. It drains on every start and sign-in, so what a crash or
// kill -9 left in the outbox goes when the database is back.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { noteOutboxOutage, outboxCounts, type OutboxCounts, type OutboxEntry } from '../../collections/outbox.js';
import { retryDelay } from '../reconnect.js';
import { pushRound } from './push-round.js';
import { messageOf } from '../../errors.shared.js';

export interface OutboxPushStatus extends OutboxCounts {
  /** What the last try met while the database was away; null once a send succeeds. */
  waitingBecause: string | null;
}

export interface OutboxPush {
  /** Something was added, or the database is back: send now instead of at the next retry. */
  kick(): void;
  /** Sends what can be sent now; resolves when the outbox is empty or a send met an outage. */
  drain(): Promise<void>;
  status(): OutboxPushStatus;
  close(): Promise<void>;
}

export interface OutboxPushOptions {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** Why nothing may be sent now (the database is another team's), or null. Checked before each round. */
  holdBack?: () => string | null;
  /** Entries refused by the database (their collections show it now). */
  onRefused?: (entries: readonly OutboxEntry[], reason: string) => void;
  /** A send met an outage (the database away: perhaps a failover, seen here before the pull sees it). */
  onOutage?: (e: unknown) => void;
  /** Events per statement (default 500). */
  batchSize?: number;
  /** First and longest wait between tries after an answer (default 200 ms, 15 s); silence: at most 1 s. */
  retryFirstMs?: number;
  retryMaxMs?: number;
}

export function startOutboxPush(o: OutboxPushOptions): OutboxPush {
  const { db, clock, logger } = o;
  const batchSize = o.batchSize ?? 500;
  const first = o.retryFirstMs ?? 200;
  const max = o.retryMaxMs ?? 15_000;
  /** Waits scheduled in a row without a drain that finished: the next waits doublingDelay(waits + 1, first, max). */
  let waits = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let waitingBecause: string | null = null;
  /** What the last outage was: silence is tried again every second, an answer backs off (team/reconnect.ts). */
  let lastOutage: unknown = null;

  function outage(entries: readonly OutboxEntry[], e: unknown): void {
    const reason = messageOf(e);
    if (waitingBecause !== reason)
      logger.warn(
        { err: e, waiting: outboxCounts(db).pending, retryMs: retryDelay(e, waits + 1, first, max) },
        'team push: the team database did not take the outbox; kept, and sent again when it is back',
      );
    waitingBecause = reason;
    lastOutage = e;
    const ids = entries.map((x) => x.id);
    noteOutboxOutage(db, ids, reason, clock.now());
    o.onOutage?.(e);
  }

  const round = (): Promise<boolean> =>
    pushRound({
      ...o,
      batchSize,
      closed: () => closed,
      sent: () => void (waitingBecause = null),
      held: (reason) => void (waitingBecause = reason),
      outage,
    }).catch((e: unknown) => {
      // The local database failed (locked past busy_timeout): the entries are still there.
      logger.warn({ err: e }, 'team push: the outbox could not be read or updated; trying again');
      return false;
    });

  function schedule(): void {
    if (closed || timer) return;
    timer = setTimeout(
      () => {
        timer = null;
        void drain();
      },
      retryDelay(lastOutage, ++waits, first, max),
    );
    timer.unref?.();
  }

  function drain(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          if (await round()) waits = 0;
          else {
            schedule();
            break;
          }
        } while (again && !closed);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  void drain();

  return {
    kick() {
      if (closed) return;
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      waits = 0;
      void drain();
    },
    drain,
    status: () => ({ ...outboxCounts(db), waitingBecause }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
