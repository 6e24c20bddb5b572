// The bounded security log of callback deliveries that were refused or did not verify. Such a delivery
// is never a collection event (it could name any real merchant_reference); it is only counted here, per
// hour, reason and source, with at most a few short samples, so a flood of bad requests costs a counter
// update, not a row with its body. Counts gather in memory and are written together (one small
// transaction per flush), so the flood does not buy a commit per request either.
import type { ReadDb, WriteDb } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import {
  pruneSecurityLog,
  putSecurityBucket,
  securityBucket,
  securityBuckets,
  securitySourceCount,
  securityTotals,
} from '../store/sqlite/callbacks/security-log.js';

import type { SecurityLogRow, SecurityLogView, SecurityReason } from './security-log-types.shared.js';

export type { SecurityLogRow, SecurityLogView, SecurityReason };

const HOUR_MS = 3_600_000;
const KEEP_MS = 30 * 24 * HOUR_MS;
const MAX_SAMPLES = 3;
const SAMPLE_BYTES = 512;
/** Distinct sources kept per hour and reason; more (a spread-out flood) are counted under 'other'. */
const MAX_SOURCES = 64;

/** A bucket being counted in memory until the next flush: the same shape as a stored row. */
type Pending = SecurityLogRow;

/** At most SAMPLE_BYTES of UTF-8, no control characters, never split inside a character. */
export function truncateSample(s: string, max = SAMPLE_BYTES): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, ' ');
  if (Buffer.byteLength(clean) <= max) return clean;
  let out = '';
  let bytes = 0;
  for (const ch of clean) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > max - 3) break;
    out += ch;
    bytes += n;
  }
  return out + '...';
}

export interface SecurityLogOptions {
  /** How long counts may wait in memory before they are written (default 1 s). */
  flushMs?: number;
  keepMs?: number;
}

export class SecurityLog {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private readonly flushMs: number;
  private readonly keepMs: number;

  constructor(
    private readonly db: WriteDb,
    opts: SecurityLogOptions = {},
  ) {
    this.flushMs = opts.flushMs ?? 1000;
    this.keepMs = opts.keepMs ?? KEEP_MS;
  }

  record(reason: SecurityReason, source: string, now: number, sample?: string): void {
    const bucketStart = Math.floor(now / HOUR_MS) * HOUR_MS;
    let key = `${bucketStart}\n${reason}\n${source}`;
    // The in-memory map is bounded too: past the cap, new sources share one entry.
    if (!this.pending.has(key) && this.pending.size >= MAX_SOURCES * 8) {
      source = 'other';
      key = `${bucketStart}\n${reason}\n${source}`;
    }
    let p = this.pending.get(key);
    if (!p)
      this.pending.set(key, (p = { bucketStart, reason, source, count: 0, firstAt: now, lastAt: now, samples: [] }));
    p.count += 1;
    p.firstAt = Math.min(p.firstAt, now);
    p.lastAt = Math.max(p.lastAt, now);
    if (sample !== undefined && p.samples.length < MAX_SAMPLES) p.samples.push(truncateSample(sample));
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is counted so far and prunes buckets older than keepMs. */
  flush(now = Date.now()): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const items = [...this.pending.values()];
    this.pending.clear();
    const db = this.db;
    writeTransaction(db, () => {
      for (const p of items) {
        let source = p.source;
        let row = securityBucket(db, p.bucketStart, p.reason, source);
        if (!row && source !== 'other' && securitySourceCount(db, p.bucketStart, p.reason) >= MAX_SOURCES) {
          source = 'other';
          row = securityBucket(db, p.bucketStart, p.reason, source);
        }
        const samples = row ? (JSON.parse(row.samples) as string[]) : [];
        for (const s of p.samples) if (samples.length < MAX_SAMPLES) samples.push(s);
        putSecurityBucket(db, {
          bucket_start: p.bucketStart,
          reason: p.reason,
          source,
          count: (row?.count ?? 0) + p.count,
          first_at: Math.min(row?.first_at ?? p.firstAt, p.firstAt),
          last_at: Math.max(row?.last_at ?? p.lastAt, p.lastAt),
          samples: JSON.stringify(samples),
        });
      }
      pruneSecurityLog(db, now - this.keepMs);
    });
  }

  close(): void {
    this.flush();
  }
}

/** Newest buckets first. */
export function listSecurityLog(
  db: ReadDb,
  q: { from?: number | undefined; limit?: number | undefined } = {},
): { rows: SecurityLogRow[]; totals: Record<string, number> } {
  const from = q.from ?? 0;
  const rows = securityBuckets(db, from, q.limit ?? 200).map((r) => ({
    bucketStart: r.bucket_start,
    // Only record() writes the log, with a SecurityReason.
    reason: r.reason as SecurityReason,
    source: r.source,
    count: r.count,
    firstAt: r.first_at,
    lastAt: r.last_at,
    samples: JSON.parse(r.samples) as string[],
  }));
  const totals: Record<string, number> = {};
  for (const t of securityTotals(db, from)) totals[t.reason] = t.n;
  return { rows, totals };
}
