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
import {
  acknowledgedBefore,
  keepReport,
  keptReport,
  markRestored,
  type AcknowledgedRow,
} from '../store/sqlite/serve-journal.js';
import { eventsStored } from '../store/pg/events.js';
import { restoreEvents, type RestoreRow } from '../store/pg/rollback.js';
import type { NewTeamEvent } from '../team/events.js';
import { journalEvent, type ServeJournal } from './journal.js';

/** What /healthz says of the team record (health.ts). */
export interface RecordReport {
  /** 'ok': nothing went back since serve kept a report; 'restoring': serve holds callbacks the record lost; 'restored': it put them back. */
  state: 'ok' | 'restoring' | 'restored';
  message: string | null;
  foundAt: string | null;
  /** Callbacks serve had acknowledged that the record lost, and the seqs they had there. */
  lost: number;
  lostSeqs: { from: number; to: number } | null;
  restored: number;
  /** Back already when serve came to them (a desk put them back). */
  present: number;
  refused: { eventKey: string; reason: string }[];
}

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

const PAGE = 500;
const OK: RecordReport = {
  state: 'ok',
  message: null,
  foundAt: null,
  lost: 0,
  lostSeqs: null,
  restored: 0,
  present: 0,
  refused: [],
};

function words(r: Omit<RecordReport, 'message'>): string | null {
  if (r.state === 'ok') return null;
  const seqs = r.lostSeqs ? ` (seq ${r.lostSeqs.from.toLocaleString('en')}–${r.lostSeqs.to.toLocaleString('en')})` : '';
  const n = `${r.lost.toLocaleString('en')} callback${r.lost === 1 ? '' : 's'}`;
  const head = `the team database lost ${n} serve had acknowledged${seqs}, probably a failover or a restore from backup`;
  if (r.state === 'restoring') return `${head}; serve holds them and puts them back`;
  const refused = r.refused.length ? `; ${r.refused.length} refused by the team database` : '';
  return `${head}; serve put back ${r.restored}, ${r.present} ${r.present === 1 ? 'was' : 'were'} back already${refused}`;
}

function restoreRow(e: NewTeamEvent, seq: number | null): RestoreRow {
  return {
    event_key: e.eventKey,
    merchant_reference: e.merchantReference,
    internal_reference: e.internalReference ?? null,
    source: e.source,
    kind: e.kind,
    status: e.status ?? null,
    amount_minor: e.amountMinor === null || e.amountMinor === undefined ? null : String(e.amountMinor),
    currency: e.currency ?? null,
    signature: e.signature,
    payload: e.payload ?? null,
    note: e.note ?? null,
    payment_url: e.paymentUrl ?? null,
    status_message: e.statusMessage ?? null,
    occurred_at: new Date(e.occurredAt).toISOString(),
    evidence: e.evidence ?? null,
    lost_seq: seq,
    lost_recorded_at: null,
    lost_actor: null,
  };
}

export function startRecordWatch(o: RecordWatchOptions): RecordWatch {
  const { pool, journal, logger } = o;
  const clock = o.clock ?? systemClock;
  const db = journal.db;
  const restoreAfterMs = o.restoreAfterMs ?? 10_000;
  let report: RecordReport = (() => {
    const kept = keptReport(db);
    try {
      return kept ? ({ ...OK, ...(JSON.parse(kept) as Partial<RecordReport>) } as RecordReport) : OK;
    } catch {
      return OK;
    }
  })();
  /** The last break of the connection not yet looked past; a start counts as one (anything may have happened). */
  let lostAt: number | null = clock.now();
  /** Callbacks found missing, waiting for their turn to be put back. */
  const waiting = new Map<string, { row: AcknowledgedRow; foundAt: number }>();
  let running: Promise<void> | null = null;
  let closed = false;
  let prunedAt = -Infinity;

  function setReport(r: Omit<RecordReport, 'message'>): void {
    report = { ...r, message: words(r) };
    keepReport(db, JSON.stringify(report), clock.now());
  }

  async function missingSince(from: number): Promise<AcknowledgedRow[]> {
    const missing: AcknowledgedRow[] = [];
    let after: { at: number; key: string } | null = null;
    for (;;) {
      const rows = acknowledgedBefore(db, from, PAGE, after);
      if (!rows.length) break;
      const stored = await eventsStored(
        pool,
        rows.map((r) => r.event_key),
      );
      const gone = rows.filter((_, i) => !stored[i]);
      missing.push(...gone);
      if (!gone.length) break; // an older page the record holds whole: what went back is after it
      const last = rows[rows.length - 1]!;
      after = { at: last.acknowledged_at, key: last.event_key };
    }
    return missing;
  }

  async function look(): Promise<void> {
    const now = clock.now();
    if (now - prunedAt > 3_600_000) {
      prunedAt = now;
      const gone = await journal.prune(now);
      if (gone)
        logger.info({ pruned: gone, days: journal.days }, 'serve journal: forgot callbacks older than its days');
    }
    const since = lostAt;
    // A little past the break: a callback acknowledged as the connection broke may be on either side.
    const missing = await missingSince((since ?? now) + 2_000);
    if (since !== null && lostAt === since) lostAt = null;
    const fresh = missing.filter((m) => !waiting.has(m.event_key));
    for (const m of fresh) waiting.set(m.event_key, { row: m, foundAt: now });
    if (fresh.length) {
      const seqs = [...waiting.values()].map((w) => w.row.seq).filter((s): s is number => s !== null);
      const lostSeqs = seqs.length ? { from: Math.min(...seqs), to: Math.max(...seqs) } : null;
      setReport({
        state: 'restoring',
        foundAt: new Date(now).toISOString(),
        lost: waiting.size,
        lostSeqs,
        restored: 0,
        present: 0,
        refused: [],
      });
      logger.warn(
        { lost: waiting.size, lostSeqs },
        'serve: the team database lost callbacks serve had acknowledged (probably a failover or a restore from backup); putting them back from the journal',
      );
    }
    const due = [...waiting.values()].filter((w) => now - w.foundAt >= restoreAfterMs);
    if (!due.length) return;
    const rows = due
      .map((w) => w.row)
      .sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.acknowledged_at - b.acknowledged_at);
    let restored = 0;
    let present = 0;
    const refused: RecordReport['refused'] = [];
    for (let i = 0; i < rows.length; i += PAGE) {
      const page = rows.slice(i, i + PAGE);
      const out = await restoreEvents(
        pool,
        page.map((r) => restoreRow(journalEvent(r), r.seq)),
      );
      for (const r of out) {
        if (r.outcome === 'restored') restored++;
        else if (r.outcome === 'present') present++;
        else refused.push({ eventKey: r.event_key, reason: r.reason ?? 'refused' });
      }
      markRestored(
        db,
        out.filter((r) => r.outcome === 'restored').map((r) => r.event_key),
        clock.now(),
      );
      for (const r of page) waiting.delete(r.event_key);
    }
    const prev = report.state === 'restoring' ? report : null;
    setReport({
      state: waiting.size ? 'restoring' : 'restored',
      foundAt: prev?.foundAt ?? new Date(now).toISOString(),
      lost: prev?.lost ?? rows.length,
      lostSeqs: prev?.lostSeqs ?? null,
      restored: (prev?.restored ?? 0) + restored,
      present: (prev?.present ?? 0) + present,
      refused: [...(prev?.refused ?? []), ...refused],
    });
    logger.warn({ restored, present, refused: refused.length }, 'serve: put back callbacks the team database had lost');
  }

  function check(): Promise<void> {
    if (closed) return Promise.resolve();
    running ??= look()
      .catch((e: unknown) => {
        // The database cannot be reached (or broke during the look): the next look starts from here.
        lostAt = clock.now();
        logger.warn(
          { err: (e as Error).message },
          'serve: could not check the team record for lost callbacks; trying again',
        );
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
