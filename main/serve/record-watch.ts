// serve's watch over the callbacks it acknowledged (issue 29): when the team record went back in time
// (an asynchronous failover, a restore from backup) and lost some of them, serve says so in its health
// ("the team database lost 38 callbacks serve had acknowledged (seq 45–82), probably a failover or a
// restore from backup") and puts them back from its journal (journal.ts) through team.restore_events,
// exactly once by event key, after giving the desks a moment to put back theirs first (their own
// events, then the signed ones they hold), so the record keeps the old order where it can.
//
// Which callbacks to ask about: a record that goes back loses everything committed after some moment,
// and serve acknowledged its callbacks in commit order, so in the journal (newest first) the lost ones
// are one run, acknowledged before the record went back. The watch keeps its own connection open for
// good: when it breaks (the database restarted, moved, or was dropped), that moment is noted, and the
// next look starts there, newest first, through the pages that are missing from the record, and stops
// at the first page the record holds whole. Without a break it looks at the newest page each time.
// serve's login reads no event key (team migration 8): it asks team.events_stored yes or no for keys it
// holds.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { keepReport, type AcknowledgedRow } from '../store/sqlite/serve-journal.js';
import type { ServeJournal } from './journal.js';
import { keptOrOk, lostReport, restoredReport, words, type RecordReport } from './record-report.js';
import { lostSeqsOf, missingSince, restorePages } from './record-restore.js';
import { messageOf } from '../errors.shared.js';

export interface RecordWatch {
  report(): RecordReport;
  /** The connection broke now: the next look starts from here. */
  connectionLost(): void;
  /** Looks (and puts back what is due) now. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export interface RecordWatchOptions {
  /** serve's own connection for the watch (one, kept open: its break is heard). */
  pool: pg.Pool;
  journal: ServeJournal;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  clock?: Clock;
  /** How often it looks (default 5 s). */
  checkEveryMs?: number;
  /** How long after finding them it puts back what the desks have not (default 10 s). */
  restoreAfterMs?: number;
}

/** Forgets the journal's callbacks older than its days, at most once an hour (the first call does). */
function hourlyPrune(journal: ServeJournal, logger: RecordWatchOptions['logger']): (now: number) => Promise<void> {
  let prunedAt = -Infinity;
  return async (now) => {
    if (now - prunedAt <= 3_600_000) return;
    prunedAt = now;
    const gone = await journal.prune(now);
    if (gone) logger.info({ pruned: gone, days: journal.days }, 'serve journal: forgot callbacks older than its days');
  };
}

export function startRecordWatch(o: RecordWatchOptions): RecordWatch {
  const { pool, journal, logger } = o;
  const clock = o.clock ?? systemClock;
  const db = journal.db;
  const restoreAfterMs = o.restoreAfterMs ?? 10_000;
  let report: RecordReport = keptOrOk(db);
  /** The last break of the connection not yet looked past; a start counts as one (anything may have happened). */
  let lostAt: number | null = clock.now();
  /** Callbacks found missing, waiting for their turn to be put back. */
  const waiting = new Map<string, { row: AcknowledgedRow; foundAt: number }>();
  let running: Promise<void> | null = null;
  let closed = false;
  const pruneHourly = hourlyPrune(journal, logger);

  function setReport(r: Omit<RecordReport, 'message'>): void {
    report = { ...r, message: words(r) };
    keepReport(db, JSON.stringify(report), clock.now());
  }

  /** Adds the newly missing callbacks to those waiting and says so. */
  function noteMissing(missing: AcknowledgedRow[], now: number): void {
    const fresh = missing.filter((m) => !waiting.has(m.event_key));
    for (const m of fresh) waiting.set(m.event_key, { row: m, foundAt: now });
    if (!fresh.length) return;
    const lostSeqs = lostSeqsOf(waiting);
    setReport(lostReport(waiting.size, lostSeqs, now));
    logger.warn(
      { lost: waiting.size, lostSeqs },
      'serve: the team database lost callbacks serve had acknowledged (probably a failover or a restore from backup); putting them back from the journal',
    );
  }

  /** Puts back the callbacks that waited long enough for the desks, and reports what came of them. */
  async function restoreDue(now: number): Promise<void> {
    const due = [...waiting.values()].filter((w) => now - w.foundAt >= restoreAfterMs);
    if (!due.length) return;
    const rows = due
      .map((w) => w.row)
      .sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.acknowledged_at - b.acknowledged_at);
    const done = await restorePages(pool, db, clock, rows, (page) => {
      for (const r of page) waiting.delete(r.event_key);
    });
    setReport(restoredReport(report, now, rows.length, done, waiting.size > 0));
    logger.warn(
      { restored: done.restored, present: done.present, refused: done.refused.length },
      'serve: put back callbacks the team database had lost',
    );
  }

  async function look(): Promise<void> {
    const now = clock.now();
    await pruneHourly(now);
    const since = lostAt;
    // A little past the break: a callback acknowledged as the connection broke may be on either side.
    const missing = await missingSince(db, pool, (since ?? now) + 2_000);
    if (since !== null && lostAt === since) lostAt = null;
    noteMissing(missing, now);
    await restoreDue(now);
  }

  function check(): Promise<void> {
    if (closed) return Promise.resolve();
    running ??= look()
      .catch((e: unknown) => {
        // The database cannot be reached (or broke during the look): the next look starts from here.
        lostAt = clock.now();
        logger.warn({ err: messageOf(e) }, 'serve: could not check the team record for lost callbacks; trying again');
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => void check(), o.checkEveryMs ?? 5_000);
  timer.unref?.();
  void check();

  return {
    report: () => report,
    connectionLost() {
      lostAt = clock.now();
    },
    check,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
