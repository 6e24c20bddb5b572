// The push side of the team record: sends a desk's outbox (collections/outbox.ts, written by the ledger
// in the same transaction as each event) until PostgreSQL has every event. team.events is idempotent by
// event key (ON CONFLICT DO NOTHING), so an entry whose key the database already holds (a send whose
// answer was lost, a restart after a crash) counts as taken.
//
// A lost connection (no SQLSTATE, ECONNRESET, 57P01 admin shutdown, class 08, the pool's connect
// timeout) or a sign-in the database no longer takes is an OUTAGE: the entries stay and are sent again,
// every second while the database is silent and with back-off after an answer (team/reconnect.ts). Only a refusal by the database itself (a SQLSTATE such as 42501 insufficient_privilege,
// 23514 check_violation, 22xxx data exception) or by the event check before sending marks an entry
// refused, with the reason: it stays on the desk, its collection says so (collections/query.ts), and it
// does not hold back the entries behind it. It drains on every start and sign-in, so what a crash or
// kill -9 left in the outbox goes when the database is back.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import {
  markOutboxRefused,
  markOutboxSent,
  noteOutboxOutage,
  outboxCounts,
  pendingOutbox,
  type OutboxCounts,
  type OutboxEntry,
} from '../../collections/outbox.js';
import { TeamError, TeamFieldError, TeamSignInError, TeamUnavailableError, translatePgError } from '../errors.js';
import { poolLogin } from '../pool.js';
import { recordEvents } from '../record.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { markRefold } from '../../store/sqlite/team/refold.js';
import { retryDelay } from '../reconnect.js';

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
  /** Events per statement (default 500). */
  batchSize?: number;
  /** First and longest wait between tries after an answer (default 200 ms, 15 s); silence: at most 1 s. */
  retryFirstMs?: number;
  retryMaxMs?: number;
}

/** Classes of SQLSTATE that say "not now" rather than "no": serialization, deadlock, lock, cancel, resources, system. */
const TRANSIENT = /^(40001|40P01|55P03|57014|53|58|XX)/;

/**
 * Whether a failed send met an outage (keep the entries and try again) rather than a refusal of them.
 * Unknown failures count as outages: an event is never dropped on a guess.
 */
export function isOutage(e: unknown): boolean {
  if (!(e instanceof TeamError)) return true;
  if (e instanceof TeamUnavailableError || e instanceof TeamSignInError) return true;
  if (e instanceof TeamFieldError) return false; // the event check, or a constraint naming a field
  if (e.code === undefined) return true; // no SQLSTATE: nothing in the database said no
  return TRANSIENT.test(e.code);
}

export function startOutboxPush(o: OutboxPushOptions): OutboxPush {
  const { pool, db, clock, logger } = o;
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
  const login = poolLogin(pool);

  const send = async (entries: readonly OutboxEntry[]) => {
    try {
      await recordEvents(
        pool,
        entries.map((x) => x.event),
      );
    } catch (e) {
      throw translatePgError(e, 'append events', login);
    }
  };

  function refuse(entry: OutboxEntry, e: unknown): void {
    const reason = e instanceof Error ? e.message : String(e);
    // Refused, it is left out of its collection's fold: the desk never shows as fact what the team refused.
    writeTransaction(db, () => {
      markOutboxRefused(db, entry.id, reason, clock.now());
      markRefold(db, entry.event.merchantReference, clock.now());
    });
    logger.warn(
      { reference: entry.event.merchantReference, kind: entry.event.kind, eventKey: entry.eventKey, reason },
      'the team database refused an event: it stays on this desk, marked as not accepted',
    );
    try {
      o.onRefused?.([entry], reason);
    } catch (err) {
      logger.warn({ err }, 'team push: onRefused failed');
    }
  }

  /** One round: true when everything that can be sent now was sent; false after an outage. */
  async function round(): Promise<boolean> {
    for (;;) {
      if (closed) return true;
      const batch = pendingOutbox(db, batchSize);
      if (!batch.length) return true;
      const held = o.holdBack?.() ?? null;
      if (held) {
        waitingBecause = held;
        return false;
      }
      try {
        await send(batch);
        markOutboxSent(
          db,
          batch.map((x) => x.id),
          clock.now(),
        );
        waitingBecause = null;
        continue;
      } catch (e) {
        if (isOutage(e)) return outage(batch, e);
        if (batch.length === 1) {
          refuse(batch[0]!, e);
          continue;
        }
      }
      // The statement was refused as a whole: each entry alone, so only the refused ones are held.
      for (const entry of batch) {
        if (closed) return true;
        try {
          await send([entry]);
          markOutboxSent(db, [entry.id], clock.now());
          waitingBecause = null;
        } catch (e) {
          if (isOutage(e)) return outage([entry], e);
          refuse(entry, e);
        }
      }
    }
  }

  function outage(entries: readonly OutboxEntry[], e: unknown): false {
    const reason = e instanceof Error ? e.message : String(e);
    if (waitingBecause !== reason)
      logger.warn(
        { err: e, waiting: outboxCounts(db).pending, retryMs: retryDelay(e, waits + 1, first, max) },
        'team push: the team database did not take the outbox; kept, and sent again when it is back',
      );
    waitingBecause = reason;
    lastOutage = e;
    noteOutboxOutage(
      db,
      entries.map((x) => x.id),
      reason,
      clock.now(),
    );
    return false;
  }

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
          let done = false;
          try {
            done = await round();
          } catch (e) {
            // The local database failed (locked past busy_timeout): the entries are still there.
            logger.warn({ err: e }, 'team push: the outbox could not be read or updated; trying again');
          }
          if (done) waits = 0;
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
