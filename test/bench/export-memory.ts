// What the collections export holds in memory, split by kind, on a generated year (--db: the file
// `npm run bench -- --keep` left). `npm run bench` reports the export's peak RSS in its own process, after two
// full reconciliations; RSS also counts the database file's pages that SQLite maps (mmap_size) and that
// a connection has touched: the kernel's page cache, shared and clean, dropped under memory pressure and
// when the connection closes. This prints, for one export in this fresh process and then one right after
// a full reconciliation (as the bench runs it), the peak of RSS and of its private part (RSS minus the
// file-backed pages, from /proc/self/statm), sampled every 5 ms, and the same before each export.
//   npx tsx test/bench/export-memory.ts --db FILE [--after-reconcile true|false]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runExport } from '../../main/reports/index.js';
import { reconcileAllInWorker } from '../../main/reconcile/index.js';

const { values: opt } = parseArgs({
  options: { db: { type: 'string' }, 'after-reconcile': { type: 'string', default: 'true' } },
  strict: true,
});
if (!opt.db) throw new Error('--db: the path of a generated database (npm run bench -- --keep) is required');
const file = opt.db;
const STALE = 30 * 60_000;
const PAGE = 4096;
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** Resident bytes and the file-backed part of them (statm: size resident shared ...; pages). */
function memory(): { rss: number; fileBacked: number } {
  const [, resident, shared] = fs.readFileSync('/proc/self/statm', 'utf8').split(' ').map(Number);
  return { rss: (resident ?? 0) * PAGE, fileBacked: (shared ?? 0) * PAGE };
}

async function measuredExport(label: string): Promise<Record<string, number | string>> {
  const before = memory();
  let peakRss = before.rss;
  let peakPrivate = before.rss - before.fileBacked;
  const sampler = setInterval(() => {
    const m = memory();
    peakRss = Math.max(peakRss, m.rss);
    peakPrivate = Math.max(peakPrivate, m.rss - m.fileBacked);
  }, 5);
  const out = path.join(os.tmpdir(), `export-memory-${process.pid}.csv`);
  const t = performance.now();
  const r = await runExport({
    dbFile: file,
    job: { kind: 'collections' },
    out,
    now: Date.now(),
    stalePendingAfterMs: STALE,
  });
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  fs.rmSync(out, { force: true });
  return {
    export: label,
    rows: r.rows,
    seconds: Math.round(seconds * 100) / 100,
    rss_before_mb: mb(before.rss),
    private_before_mb: mb(before.rss - before.fileBacked),
    peak_rss_mb: mb(peakRss),
    peak_private_mb: mb(peakPrivate),
  };
}

const results = [await measuredExport('fresh process')];
if (opt['after-reconcile'] === 'true') {
  await reconcileAllInWorker(file, { now: Date.now(), stalePendingAfterMs: STALE });
  results.push(await measuredExport('right after a full reconciliation'));
}
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
