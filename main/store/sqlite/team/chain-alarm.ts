// The hash chain's alarm, kept so a restarted desk shows it at once (team_chain_alarm, migration 18):
// one row per way it was found, each cleared only by a check of the same kind.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, oneOf, rowMapper, text } from '../../columns.js';

/** How the break was found: a pull whose events do not continue the chain, or a re-check of the record. */
export type ChainAlarmFinder = 'pull' | 'recheck';

/** The first seq that does not match, and why. */
export interface ChainAlarm {
  seq: number;
  reason: string;
}

const FINDERS: readonly ChainAlarmFinder[] = ['pull', 'recheck'];
const alarmRowOf = rowMapper((r) => ({
  found_by: oneOf(r, 'found_by', FINDERS),
  seq: int(r, 'seq'),
  reason: text(r, 'reason'),
}));

/** The alarms kept by an earlier run of this desk, by how they were found. */
export function keptAlarms(db: ReadDb): Record<ChainAlarmFinder, ChainAlarm | null> {
  const rows = readStatement(db, 'SELECT found_by, seq, reason FROM team_chain_alarm').all().map(alarmRowOf);
  const kept: Record<ChainAlarmFinder, ChainAlarm | null> = { pull: null, recheck: null };
  for (const r of rows) kept[r.found_by] = { seq: r.seq, reason: r.reason };
  return kept;
}

/** Keeps (or, with null, clears) the alarm found one way. */
export function keepAlarm(db: WriteDb, by: ChainAlarmFinder, alarm: ChainAlarm | null, now: number): void {
  if (alarm)
    statement(
      db,
      `INSERT INTO team_chain_alarm (found_by, seq, reason, found_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (found_by) DO UPDATE SET seq = excluded.seq, reason = excluded.reason, found_at = excluded.found_at`,
    ).run(by, alarm.seq, alarm.reason, now);
  else statement(db, 'DELETE FROM team_chain_alarm WHERE found_by = ?').run(by);
}
