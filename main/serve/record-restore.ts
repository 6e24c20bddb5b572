// Finding and putting back the callbacks serve acknowledged that the team record lost (record-watch.ts
// decides when): the journal read newest first against team.events_stored, and team.restore_events a page
// at a time in the record's old order.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { acknowledgedBefore, markRestored, type AcknowledgedRow } from '../store/sqlite/serve-journal.js';
import { eventsStored } from '../store/pg/event-inserts.js';
import { restoreEvents } from '../store/pg/rollback.js';
import { restoreRow } from '../team/restore-row.js';
import { journalEvent, type ServeJournal } from './journal.js';
import type { RecordReport } from './record-report.js';

const PAGE = 500;

/**
 * The callbacks acknowledged before `from` that the record does not hold: newest first, a page at a time,
 * until a page the record holds whole.
 */
export async function missingSince(db: ServeJournal['db'], pool: pg.Pool, from: number): Promise<AcknowledgedRow[]> {
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

/** The seqs the waiting callbacks had in the record, first to last. */
export function lostSeqsOf(waiting: Map<string, { row: AcknowledgedRow }>): RecordReport['lostSeqs'] {
  const seqs = [...waiting.values()].map((w) => w.row.seq).filter((s): s is number => s !== null);
  return seqs.length ? { from: Math.min(...seqs), to: Math.max(...seqs) } : null;
}

export interface Restored {
  restored: number;
  present: number;
  refused: RecordReport['refused'];
}

/**
 * Puts `rows` back through team.restore_events a page at a time, in their old order; marks the restored
 * ones in the journal and calls `done` with each page once the record has answered it.
 */
export async function restorePages(
  pool: pg.Pool,
  db: ServeJournal['db'],
  clock: Clock,
  rows: AcknowledgedRow[],
  done: (page: AcknowledgedRow[]) => void,
): Promise<Restored> {
  let restored = 0;
  let present = 0;
  const refused: RecordReport['refused'] = [];
  for (let i = 0; i < rows.length; i += PAGE) {
    const page = rows.slice(i, i + PAGE);
    const out = await restoreEvents(
      pool,
      page.map((r) => restoreRow(journalEvent(r), { seq: r.seq, recordedAt: null, actor: null })),
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
    done(page);
  }
  return { restored, present, refused };
}
