// serve's journal of the callbacks it acknowledged (issue 29). The service sends a callback until it gets
// a 2xx and never again after: once serve answered 200, the team record is the only place the callback
// lives. If that record then goes back in time (an asynchronous failover, a restore from backup), a
// callback no desk had pulled yet would be gone for good. So serve keeps, in its own SQLite file
// (serve-journal.sqlite in its data folder; its own schema), each callback's team event as it wrote it
// (the body and the signature headers as received: it proves itself to any desk), for a number of days
// (default 14, --journal-days), pruned hourly; record-watch.ts puts back what the record lost.
//
// A row is written after the record's commit and before the delivery is answered: a callback answered
// 200 is in the journal. When the journal cannot be written, the delivery is answered 503 and the
// service sends it again (stored once by its key, as any repeated delivery).
import path from 'node:path';
import type { Db } from '../store/sqlite/connection.js';
import {
  keepAcknowledged,
  openServeJournal,
  pruneAcknowledged,
  type AcknowledgedRow,
} from '../store/sqlite/serve-journal.js';
import type { NewTeamEvent } from '../team/events.js';

export const JOURNAL_FILE = 'serve-journal.sqlite';
export const DEFAULT_JOURNAL_DAYS = 14;

export interface ServeJournal {
  db: Db;
  days: number;
  /** Keeps callbacks just stored (seq: the one the record gave it, or null when it was there already). */
  keep(entries: readonly { event: NewTeamEvent; seq: number | null }[], now: number): void;
  /** Forgets what is older than the journal's days; how many rows went. */
  prune(now: number): number;
  close(): void;
}

export function openJournal(dataDir: string, days = DEFAULT_JOURNAL_DAYS): ServeJournal {
  const db = openServeJournal(path.join(dataDir, JOURNAL_FILE));
  return {
    db,
    days,
    keep(entries, now) {
      keepAcknowledged(
        db,
        entries.map((e): AcknowledgedRow => ({
          event_key: e.event.eventKey,
          seq: e.seq,
          event: JSON.stringify(e.event),
          acknowledged_at: now,
        })),
      );
    },
    prune: (now) => pruneAcknowledged(db, now - days * 86_400_000),
    close: () => db.close(),
  };
}
