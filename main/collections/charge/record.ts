// How a charge stores what the service answered (initialize answer, redirect, the window's closing):
// through the ledger, and on a team profile with an outbox row in the same transaction, so the team
// database gets it from the outbox (team/sync/push.ts) however long it is away, and whatever happens
// to this process. Nothing waits in memory to be written to the team.
//
// The one wait left is SQLite's own: the ledger's transaction is immediate with busy_timeout, and when
// another process holds the write lock longer than that (or the disk is full for a moment) the answer
// is NOT kept in memory behind the charge's back: the charge step waits, trying again with back-off,
// until it is stored, so the payment window never opens on an answer the desk has not stored. If the
// service closes while it still waits, the charge fails with the answer's reference, kind and page in
// the log and in the error: a person can still act on it (the service's callback settles it anyway).
import Database from 'better-sqlite3';
import type { Ledger } from '../ledger.js';
import type { Db } from '../../store/sqlite/connection.js';
import { PaymentError } from '../errors.js';
import type { ChargeEvents, ChargeLogger, TeamChargeSeam } from './types.js';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;
const WARN_EVERY_MS = 30_000;

/** Failures that pass: another writer, a full disk, an I/O hiccup. Anything else is a bug and is thrown. */
function isTransient(e: unknown): boolean {
  if (!(e instanceof Database.SqliteError)) return false;
  return /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(e.code);
}

export function chargeEvents(
  db: Db,
  o: {
    /** The process's ledger: the events are stored through it. */
    ledger: Pick<Ledger, 'append'>;
    team: () => TeamChargeSeam | null;
    now: () => number;
    logger?: ChargeLogger | undefined;
    /** Who is charging: on a team desk its login, which PostgreSQL records as the team copy's actor. */
    operator: () => string;
  },
): ChargeEvents {
  let disposed = false;
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });

  return {
    async append(given) {
      const team = o.team();
      // On a team desk the local copy names the login as the event's actor: the team copy's actor is the
      // login PostgreSQL records, so both say the same.
      const ev = team ? { ...given, actor: o.operator() } : given;
      let delay = RETRY_FIRST_MS;
      let warnedAt = 0;
      for (;;) {
        try {
          const r = o.ledger.append(db, ev, team ? { outbox: true, now: o.now() } : {});
          if (warnedAt)
            o.logger?.info({ reference: ev.merchantReference, kind: ev.kind }, 'the waiting event is stored');
          if (team && r.inserted) team.outboxAdded();
          return r;
        } catch (e) {
          if (!isTransient(e)) throw e;
          const what = {
            reference: ev.merchantReference,
            kind: ev.kind,
            internalReference: ev.internalReference ?? null,
            paymentUrl: ev.paymentUrl ?? null,
            code: (e as { code?: string }).code,
          };
          if (disposed) {
            o.logger?.warn(what, 'closing while the database could not store what the service answered');
            throw new PaymentError(
              'unavailable',
              `The service answered for ${ev.merchantReference} (${ev.kind}${ev.paymentUrl ? `, page ${ev.paymentUrl}` : ''}) but the local database stayed locked, so the desk could not store it.`,
            );
          }
          if (!warnedAt || o.now() - warnedAt >= WARN_EVERY_MS) {
            warnedAt = o.now();
            o.logger?.warn(what, 'the database cannot store this event now; the charge waits and tries again');
          }
        }
        await sleep(delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    },
    dispose() {
      disposed = true;
      for (const wake of [...wakers]) wake();
    },
  };
}
