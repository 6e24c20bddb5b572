// The callback security log's rows (callback_security_log, store migration 006): one per hour, reason and
// source. What is counted, the caps and the merge of a flush are callbacks/security-log.ts's.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, intValue, maybe, num, rowMapper, text } from '../../columns.js';

/** One stored bucket; `samples` is the JSON array of its samples. */
export interface SecurityBucketRow {
  bucket_start: number;
  reason: string;
  source: string;
  count: number;
  first_at: number;
  last_at: number;
  samples: string;
}

type StoredBucket = Omit<SecurityBucketRow, 'bucket_start' | 'reason' | 'source'>;
const storedBucketOf = rowMapper<StoredBucket>((r) => ({
  count: int(r, 'count'),
  first_at: num(r, 'first_at'),
  last_at: num(r, 'last_at'),
  samples: text(r, 'samples'),
}));
const securityBucketRowOf = rowMapper<SecurityBucketRow>((r) => ({
  bucket_start: num(r, 'bucket_start'),
  reason: text(r, 'reason'),
  source: text(r, 'source'),
  ...storedBucketOf(r),
}));
const reasonTotalOf = rowMapper((r) => ({ reason: text(r, 'reason'), n: int(r, 'n') }));

export function securityBucket(
  db: ReadDb,
  bucketStart: number,
  reason: string,
  source: string,
): StoredBucket | undefined {
  const r = readStatement(
    db,
    `SELECT count, first_at, last_at, samples FROM callback_security_log WHERE bucket_start = ? AND reason = ? AND source = ?`,
  ).get(bucketStart, reason, source);
  return maybe(r, storedBucketOf);
}

/** How many sources the hour's bucket for `reason` holds. */
export function securitySourceCount(db: ReadDb, bucketStart: number, reason: string): number {
  return intValue(
    readStatement(db, `SELECT count(*) FROM callback_security_log WHERE bucket_start = ? AND reason = ?`, 'pluck').get(
      bucketStart,
      reason,
    ),
    'count(*)',
  );
}

/** Writes the bucket whole (a new one, or the merge of a stored one). */
export function putSecurityBucket(db: WriteDb, r: SecurityBucketRow): void {
  statement(
    db,
    `INSERT OR REPLACE INTO callback_security_log (bucket_start, reason, source, count, first_at, last_at, samples) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.bucket_start, r.reason, r.source, r.count, r.first_at, r.last_at, r.samples);
}

/** Deletes the buckets that started before `before`. */
export function pruneSecurityLog(db: WriteDb, before: number): void {
  statement(db, `DELETE FROM callback_security_log WHERE bucket_start < ?`).run(before);
}

/** Buckets from `from` on: newest first, the largest count first within an hour. */
export function securityBuckets(db: ReadDb, from: number, limit: number): SecurityBucketRow[] {
  return readStatement(
    db,
    `SELECT bucket_start, reason, source, count, first_at, last_at, samples FROM callback_security_log
         WHERE bucket_start >= ? ORDER BY bucket_start DESC, count DESC LIMIT ?`,
  )
    .all(from, limit)
    .map(securityBucketRowOf);
}

/** Per reason, the count of the buckets from `from` on. */
export function securityTotals(db: ReadDb, from: number): { reason: string; n: number }[] {
  return readStatement(
    db,
    `SELECT reason, sum(count) AS n FROM callback_security_log WHERE bucket_start >= ? GROUP BY reason`,
  )
    .all(from)
    .map(reasonTotalOf);
}
