// The log of every poll run (poll_runs): when, outcome, and for a failure its error kind and message.
import type { ReadDb, WriteDb } from './connection.js';
import type { Words } from '../../words/words.shared.js';
import { int, intOrNull, maybe, num, numOrNull, oneOf, rowMapper, textOrNull } from '../columns.js';
import { readStatement } from './statements.js';

export type PollKind = 'balances' | 'providers';

export interface PollError {
  /** A ServiceErrorKind ('network', 'unreadable', ...), or 'not_configured' / 'internal'. */
  kind: string;
  message: string;
  httpStatus?: number;
  /** What a person reads, when the failure had words (not stored: a restored run has its message only). */
  words?: Words;
}

export interface PollRun {
  id: number;
  kind: PollKind;
  startedAt: number;
  finishedAt: number | null;
  outcome: 'running' | 'ok' | 'error';
  errorKind: string | null;
  errorMessage: string | null;
  httpStatus: number | null;
  changedRows: number;
}

const POLL_KINDS: readonly PollKind[] = ['balances', 'providers'];
const OUTCOMES: readonly PollRun['outcome'][] = ['running', 'ok', 'error'];

const pollRunOf = rowMapper<PollRun>((r) => ({
  id: int(r, 'id'),
  kind: oneOf(r, 'kind', POLL_KINDS),
  startedAt: num(r, 'started_at'),
  finishedAt: numOrNull(r, 'finished_at'),
  outcome: oneOf(r, 'outcome', OUTCOMES),
  errorKind: textOrNull(r, 'error_kind'),
  errorMessage: textOrNull(r, 'error_message'),
  httpStatus: intOrNull(r, 'http_status'),
  changedRows: int(r, 'changed_rows'),
}));

/** Inserts a finished run (call inside the transaction that also writes its data). Returns its id. */
export function insertPollRun(
  db: WriteDb,
  run: { kind: PollKind; startedAt: number; finishedAt: number } & (
    { outcome: 'ok'; changedRows: number } | { outcome: 'error'; error: PollError }
  ),
): number {
  const err = run.outcome === 'error' ? run.error : null;
  const info = db
    .prepare(
      `INSERT INTO poll_runs (kind, started_at, finished_at, outcome, error_kind, error_message, http_status, changed_rows)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      run.kind,
      run.startedAt,
      run.finishedAt,
      run.outcome,
      err?.kind ?? null,
      err ? err.message.slice(0, 2000) : null,
      err?.httpStatus ?? null,
      run.outcome === 'ok' ? run.changedRows : 0,
    );
  return Number(info.lastInsertRowid);
}

/** Records a failed run; the cache is not touched. */
export function recordFailedRun(
  db: WriteDb,
  kind: PollKind,
  startedAt: number,
  finishedAt: number,
  error: PollError,
): number {
  return insertPollRun(db, { kind, startedAt, finishedAt, outcome: 'error', error });
}

export function lastRun(db: ReadDb, kind: PollKind): PollRun | null {
  // Cached statements: the status reads these with every change (a following team desk: each pull).
  const r = readStatement(db, 'SELECT * FROM poll_runs WHERE kind = ? ORDER BY id DESC LIMIT 1').get(kind);
  return maybe(r, pollRunOf) ?? null;
}

export function lastSuccessfulRun(db: ReadDb, kind: PollKind): PollRun | null {
  const r = readStatement(db, "SELECT * FROM poll_runs WHERE kind = ? AND outcome = 'ok' ORDER BY id DESC LIMIT 1").get(
    kind,
  );
  return maybe(r, pollRunOf) ?? null;
}

export function listPollRuns(db: ReadDb, opts: { kind?: PollKind; limit?: number } = {}): PollRun[] {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 1000);
  const rows = opts.kind
    ? db.prepare('SELECT * FROM poll_runs WHERE kind = ? ORDER BY id DESC LIMIT ?').all(opts.kind, limit)
    : db.prepare('SELECT * FROM poll_runs ORDER BY id DESC LIMIT ?').all(limit);
  return rows.map(pollRunOf);
}

/** What a cached list shows beside its rows: when it was last confirmed, and the failure since, if any. */
export interface CacheState {
  /** finished_at of the last successful run, or null if there never was one. */
  asOf: number | null;
  /** The latest run's error when the latest run failed; null when the latest run succeeded. */
  lastError: (PollError & { at: number }) | null;
  /** Failed since the last success, or older than staleAfterMs. */
  stale: boolean;
}

export function cacheState(db: ReadDb, kind: PollKind, now: number, staleAfterMs: number): CacheState {
  const ok = lastSuccessfulRun(db, kind);
  const last = lastRun(db, kind);
  const lastError =
    last && last.outcome === 'error'
      ? {
          kind: last.errorKind ?? 'internal',
          message: last.errorMessage ?? '',
          at: last.finishedAt ?? last.startedAt,
          ...(last.httpStatus !== null ? { httpStatus: last.httpStatus } : {}),
        }
      : null;
  const asOf = ok ? (ok.finishedAt ?? ok.startedAt) : null;
  const stale = asOf !== null && (lastError !== null || now - asOf > staleAfterMs);
  return { asOf, lastError, stale };
}
