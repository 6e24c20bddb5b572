// The log of every poll run (poll_runs): when, outcome, and for a failure its error kind and message.
import type { Db } from './connection.js';

export type PollKind = 'balances' | 'providers';

export interface PollError {
  /** A ServiceErrorKind ('network', 'unreadable', ...), or 'not_configured' / 'internal'. */
  kind: string;
  message: string;
  httpStatus?: number;
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

interface Row {
  id: number;
  kind: PollKind;
  started_at: number;
  finished_at: number | null;
  outcome: 'running' | 'ok' | 'error';
  error_kind: string | null;
  error_message: string | null;
  http_status: number | null;
  changed_rows: number;
}

function toRun(r: Row): PollRun {
  return {
    id: r.id,
    kind: r.kind,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    outcome: r.outcome,
    errorKind: r.error_kind,
    errorMessage: r.error_message,
    httpStatus: r.http_status,
    changedRows: r.changed_rows,
  };
}

/** Inserts a finished run (call inside the transaction that also writes its data). Returns its id. */
export function insertPollRun(
  db: Db,
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
  db: Db,
  kind: PollKind,
  startedAt: number,
  finishedAt: number,
  error: PollError,
): number {
  return insertPollRun(db, { kind, startedAt, finishedAt, outcome: 'error', error });
}

export function lastRun(db: Db, kind: PollKind): PollRun | null {
  const r = db.prepare('SELECT * FROM poll_runs WHERE kind = ? ORDER BY id DESC LIMIT 1').get(kind) as Row | undefined;
  return r ? toRun(r) : null;
}

export function lastSuccessfulRun(db: Db, kind: PollKind): PollRun | null {
  const r = db
    .prepare("SELECT * FROM poll_runs WHERE kind = ? AND outcome = 'ok' ORDER BY id DESC LIMIT 1")
    .get(kind) as Row | undefined;
  return r ? toRun(r) : null;
}

export function listPollRuns(db: Db, opts: { kind?: PollKind; limit?: number } = {}): PollRun[] {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 1000);
  const rows = (
    opts.kind
      ? db.prepare('SELECT * FROM poll_runs WHERE kind = ? ORDER BY id DESC LIMIT ?').all(opts.kind, limit)
      : db.prepare('SELECT * FROM poll_runs ORDER BY id DESC LIMIT ?').all(limit)
  ) as Row[];
  return rows.map(toRun);
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

export function cacheState(db: Db, kind: PollKind, now: number, staleAfterMs: number): CacheState {
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
