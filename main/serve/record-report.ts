// What serve's watch over the team record (record-watch.ts) says in /healthz, and keeps in its journal
// so that a restart says it still: the state, the callbacks lost and what came of putting them back.
import type { ServeJournal } from './journal.js';
import { keptReport } from '../store/sqlite/serve-journal.js';

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

/** The report in words (null when nothing went back). */
export function words(r: Omit<RecordReport, 'message'>): string | null {
  if (r.state === 'ok') return null;
  const seqs = r.lostSeqs ? ` (seq ${r.lostSeqs.from.toLocaleString('en')}–${r.lostSeqs.to.toLocaleString('en')})` : '';
  const n = `${r.lost.toLocaleString('en')} callback${r.lost === 1 ? '' : 's'}`;
  const head = `the team database lost ${n} serve had acknowledged${seqs}, probably a failover or a restore from backup`;
  if (r.state === 'restoring') return `${head}; serve holds them and puts them back`;
  const refused = r.refused.length ? `; ${r.refused.length} refused by the team database` : '';
  return `${head}; serve put back ${r.restored}, ${r.present} ${r.present === 1 ? 'was' : 'were'} back already${refused}`;
}

/** The report serve kept (its last state across restarts), or OK when there is none or it does not read. */
export function keptOrOk(db: ServeJournal['db']): RecordReport {
  const kept = keptReport(db);
  try {
    return kept ? ({ ...OK, ...(JSON.parse(kept) as Partial<RecordReport>) } as RecordReport) : OK;
  } catch {
    return OK;
  }
}

/** Callbacks found missing (`lost` of them by now), waiting to be put back. */
export function lostReport(
  lost: number,
  lostSeqs: RecordReport['lostSeqs'],
  now: number,
): Omit<RecordReport, 'message'> {
  return {
    state: 'restoring',
    foundAt: new Date(now).toISOString(),
    lost,
    lostSeqs,
    restored: 0,
    present: 0,
    refused: [],
  };
}

/**
 * The report after putting back `rows` callbacks (`done`), added to what the report in force says of the
 * same loss; still 'restoring' while some wait.
 */
export function restoredReport(
  report: RecordReport,
  now: number,
  rows: number,
  done: Pick<RecordReport, 'restored' | 'present' | 'refused'>,
  waiting: boolean,
): Omit<RecordReport, 'message'> {
  const prev = report.state === 'restoring' ? report : null;
  return {
    state: waiting ? 'restoring' : 'restored',
    foundAt: prev?.foundAt ?? new Date(now).toISOString(),
    lost: prev?.lost ?? rows,
    lostSeqs: prev?.lostSeqs ?? null,
    restored: (prev?.restored ?? 0) + done.restored,
    present: (prev?.present ?? 0) + done.present,
    refused: [...(prev?.refused ?? []), ...done.refused],
  };
}
