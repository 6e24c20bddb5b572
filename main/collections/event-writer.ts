// Events the charge service must not lose. An initialize answer (the service's word that a payment
// exists, and where its page is) cannot be asked for again, so when the database cannot take it at once
// (another process holds the write lock past busy_timeout, the disk is full for a moment) it is kept in
// memory and retried until stored, in arrival order, while the payment goes on.
import Database from 'better-sqlite3';
import type { Db } from '../store/db.js';
import { appendEvent, type NewEvent } from './events.js';

export interface EventWriterLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface EventWriter {
  /** Stores `ev` now, or keeps it to store later (behind any event still waiting). Returns true when stored now. */
  append(ev: NewEvent): boolean;
  /** Events waiting to be stored. */
  waiting(): number;
  /** One last synchronous try; stops the retry timer. */
  dispose(): void;
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

/** Failures that pass: another writer, a full disk, an I/O hiccup. Anything else is a bug and is thrown. */
function isTransient(e: unknown): boolean {
  if (!(e instanceof Database.SqliteError)) return false;
  return /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(e.code);
}

export function createEventWriter(
  db: Db,
  opts: { logger?: EventWriterLogger; onStored?: (collectionId: number | null) => void } = {},
): EventWriter {
  const queue: NewEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let delay = RETRY_FIRST_MS;

  /** Stores waiting events in order; stops at the first that still cannot be stored. */
  function drain(): void {
    while (queue.length) {
      const ev = queue[0]!;
      try {
        appendEvent(db, ev);
      } catch (e) {
        if (!isTransient(e)) throw e;
        return;
      }
      queue.shift();
      opts.logger?.info({ reference: ev.merchantReference, kind: ev.kind }, 'a kept event is now stored');
      opts.onStored?.(ev.collectionId);
    }
  }

  function schedule(): void {
    if (timer || !queue.length) return;
    timer = setTimeout(() => {
      timer = undefined;
      try {
        drain();
      } catch (e) {
        opts.logger?.warn({ err: e, waiting: queue.length }, 'a kept event cannot be stored');
        queue.shift(); // not transient: retrying cannot help, and it must not block the events behind it
      }
      delay = queue.length ? Math.min(delay * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
      schedule();
    }, delay);
  }

  return {
    append(ev) {
      if (!queue.length) {
        try {
          appendEvent(db, ev);
          return true;
        } catch (e) {
          if (!isTransient(e)) throw e;
          opts.logger?.warn(
            { reference: ev.merchantReference, kind: ev.kind, code: (e as { code?: string }).code },
            'the database cannot store this event now; kept in memory and retried',
          );
        }
      }
      queue.push(ev);
      schedule();
      return false;
    },
    waiting: () => queue.length,
    dispose() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      try {
        drain();
      } catch {
        /* logged below */
      }
      if (queue.length)
        opts.logger?.warn(
          { waiting: queue.length, references: queue.map((e) => e.merchantReference) },
          'events not stored at shutdown',
        );
    },
  };
}
