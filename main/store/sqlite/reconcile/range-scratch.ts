// A helper thread's side of the full pass on several threads: its own connection, which reads the app's
// database and never writes it, computes a range of collections into a scratch database of its own
// (a file the writer merges in: full-pass.ts, mergeScratch).
import type { Db } from '../connection.js';
import { openConnection } from '../connection.js';
import { statement } from '../statements.js';
import {
  RANGE_STORED_SQL,
  RECONCILIATION_DDL_SQL,
  SCRATCH_NEW_SQL,
  SCRATCH_SQL,
  scratchTablesSql,
} from './scratch-sql.js';
import { rowMapper, text } from '../../columns.js';
import { collectionsInRange, installKindSets, lastEventId, type RangeParams } from './full-pass.js';

export interface RangeHelper {
  /**
   * Computes the rows of collections lo..hi into `file` (created), only those that differ from the
   * stored ones as of this connection's snapshot. Returns the newest event id read before that snapshot
   * (an event after it is the writer's to redo) and how many collections the range holds.
   */
  computeRange(file: string, p: RangeParams): { since: number; rows: number };
  close(): void;
}

const ddlOf = rowMapper((r) => ({ type: text(r, 'type'), sql: text(r, 'sql') }));

/** Opens the helper's connection (the `pass` profile: it writes only its scratch files, keyed by ids it has just read). */
export function openRangeHelper(dbFile: string): RangeHelper {
  const db: Db = openConnection(dbFile, 'pass');
  let tables: string[];
  try {
    installKindSets(db);
    // The scratch tables take reconciliation's own shape (its table and index statements).
    tables = scratchTablesSql(statement(db, RECONCILIATION_DDL_SQL).all().map(ddlOf));
  } catch (e) {
    db.close();
    throw e;
  }
  return {
    computeRange(file, p) {
      db.prepare('ATTACH ? AS scratch').run(file);
      // A scratch file is read once, by the writer, and removed: no journal, no sync.
      db.pragma('scratch.journal_mode = OFF');
      db.pragma('scratch.synchronous = OFF');
      // Read before the statement's snapshot: an event appended meanwhile is redone by the writer.
      const since = lastEventId(db);
      for (const sql of tables) db.exec(sql);
      // Should a row be stored after this probe (the app reconciles as events arrive), the writer's copy
      // of new rows fails on its key and it upserts them instead (mergeScratch).
      if (statement(db, RANGE_STORED_SQL, 'pluck').get(p.lo, p.hi)) {
        db.prepare(SCRATCH_SQL[0]!).run(p);
        db.exec(SCRATCH_SQL[1]!);
        db.exec(SCRATCH_SQL[2]!);
      } else db.prepare(SCRATCH_NEW_SQL).run(p);
      db.exec('DETACH scratch');
      return { since, rows: collectionsInRange(db, p.lo, p.hi) };
    },
    close: () => db.close(),
  };
}
