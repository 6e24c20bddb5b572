// npm run bench: builds a synthetic year of history in a temp folder and prints ONE JSON object with,
// measured in the same run: collections CSV export vs `sqlite3 -csv` on the same rows, the same rows as
// an .xlsx workbook (time and peak memory against the CSV's), a full
// reconciliation, callback ingestion through the local receiver over loopback (signatures verified),
// p95 of a filtered, sorted page of 100 collections, and peak memory during the export.
// `--sizes 1000000,3000000` runs the whole bench at each size, one after the other in the same run, and
// adds the growth table (each figure, its ratio to the smallest size's, the load beside it; growth.ts).
// Progress goes to stderr. Options: --collections N | --sizes N,N,... --snapshots N --callbacks N --keep.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { reconcileAllInWorker } from '../../main/reconcile/index.js';
import { runExport } from '../../main/reports/index.js';
import { collectionsBaselineQuery } from '../../main/store/sqlite/read/collections-report.js';
import { listCollections } from '../../main/collections/query.js';
import { startCallbackReceiver } from '../../main/callbacks/receiver.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';
import { generate, type Generated } from './generate.js';
import { postCallbacks, signCallbacks } from './post-callbacks.js';
import { composeLedger } from '../../main/app/ledger.js';
import { growthTable, growthMarkdown, type SizeRun } from './growth.js';
import { fileBytes } from './file-bytes.js';

// As composeCore does: one ledger for the process, which reconciles what it stores.
const { ledger, reconciler } = composeLedger();

const STALE = 30 * 60_000;
/** The goals of issue 22 (the figures before them: export 1.5x, reconciliation 3 s, 3,000/s, p95 50 ms, 250 MB). */
const TARGETS = { exportRatio: 1.0, reconcileS: 1.5, ingestPerSecond: 10_000, pageP95Ms: 8, exportPeakMb: 150 };
const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

const { values: opt } = parseArgs({
  options: {
    collections: { type: 'string', default: '1000000' },
    sizes: { type: 'string' },
    // Default: one balance snapshot per 10 collections (100,000 for a year of 1M), so a bigger history is
    // bigger in every table.
    snapshots: { type: 'string' },
    callbacks: { type: 'string', default: '10000' },
    // The history's span: by default a year whatever its size (a busier merchant: a month of 3M holds
    // 3x a month of 1M); `--years-per-million 1` spans N/1M years (a longer history: every month the same).
    'years-per-million': { type: 'string' },
    generate: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});

if (opt.generate) {
  // Child process: build the history (its memory is not the app's) and report it as JSON on stdout.
  const args = JSON.parse(opt.generate) as Parameters<typeof generate>[0] & { resultFile: string };
  const cpu = process.cpuUsage();
  const generated = generate(args);
  const used = process.cpuUsage(cpu);
  fs.writeFileSync(args.resultFile, JSON.stringify({ ...generated, cpuS: (used.user + used.system) / 1e6 }));
  process.exit(0);
}

function generateInChild(args: Parameters<typeof generate>[0]): Promise<Generated & { cpuS: number }> {
  const resultFile = args.file + '.generated.json';
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--generate', JSON.stringify({ ...args, resultFile })],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Generated & { cpuS: number })
        : reject(new Error(`generator exited with ${code}`)),
    );
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The process's CPU (every thread: the pass's and the export's workers, the poster) in ms since `from`. */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}
const cpuSince = (from: NodeJS.CpuUsage) => round(cpuMsSince(from) / 1000, 2);

const load1 = () => round(os.loadavg()[0]!, 2);

async function benchAt(N: number): Promise<SizeRun> {
  const benchStart = performance.now();
  const S = opt.snapshots === undefined ? Math.max(1, Math.round(N / 10)) : Number(opt.snapshots);
  const CB = Math.min(Number(opt.callbacks), N);
  const loads: Record<string, number> = {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-'));
  const file = path.join(dir, 'merchant-desk.sqlite');
  const now = Date.now();
  const loadStart = os.loadavg();
  log(`temp folder ${dir}; generating ${N} collections, ${S} balance snapshots`);
  let t = performance.now();
  loads.generate = load1();
  const years = opt['years-per-million'] === undefined ? 1 : (Number(opt['years-per-million']) * N) / 1_000_000;
  const gen = await generateInChild({ file, collections: N, snapshots: S, ingestTargets: CB, now, years });
  const generateMs = performance.now() - t;
  const generatedBytes = fs.statSync(file).size;
  log(`generated ${gen.events} events in ${round(generateMs / 1000)} s (${mb(generatedBytes)} MB)`);

  const db = openDatabase(file);

  // Full reconciliation of every collection: first into the empty result table of a freshly generated
  // history (the target figure), then again over what it stored (a recompute of a reconciled database).
  t = performance.now();
  loads.reconciliation = load1();
  let cpu = process.cpuUsage();
  // As the app runs it (reconcile.run, reconcile --full): on a worker thread.
  const recon = await reconcileAllInWorker(file, { now, stalePendingAfterMs: STALE });
  const reconcileMs = performance.now() - t;
  const reconcileCpu = cpuSince(cpu);
  log(
    `full reconciliation: ${recon.collections} collections, ${recon.exceptions} exceptions in ${round(reconcileMs / 1000, 2)} s (target ${TARGETS.reconcileS} s): ${reconcileMs <= TARGETS.reconcileS * 1000 ? 'pass' : 'FAIL'}`,
  );
  db.pragma('wal_checkpoint(TRUNCATE)');
  t = performance.now();
  cpu = process.cpuUsage();
  const again = await reconcileAllInWorker(file, { now, stalePendingAfterMs: STALE });
  const againMs = performance.now() - t;
  const againCpu = cpuSince(cpu);
  log(`full reconciliation again, of the reconciled database: ${round(againMs / 1000, 2)} s`);
  db.pragma('wal_checkpoint(TRUNCATE)');

  // Collections CSV export vs sqlite3 -csv on the same rows, alternating, best of each.
  const sqlite3 = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
  const baselineSql = collectionsBaselineQuery().sql.replace(/\s+/g, ' ');
  const ours: number[] = [];
  const oursCpu: number[] = [];
  const theirs: number[] = [];
  loads.export = load1();
  let peakRss = 0;
  let baselineRss = 0;
  let exportRows = 0;
  let exportBytes = 0;
  let baselineBytes = 0;
  const xlsxRuns: number[] = [];
  let xlsxPeakRss = 0;
  let xlsxBytes = 0;
  for (let run = 0; run < 2; run++) {
    const out = path.join(dir, `collections-${run}.csv`);
    baselineRss = Math.max(baselineRss, process.memoryUsage.rss());
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    t = performance.now();
    cpu = process.cpuUsage();
    const r = await runExport({ dbFile: file, job: { kind: 'collections' }, out, now, stalePendingAfterMs: STALE });
    ours.push(performance.now() - t);
    oursCpu.push(cpuSince(cpu));
    clearInterval(sampler);
    peakRss = Math.max(peakRss, peak, process.memoryUsage.rss());
    exportRows = r.rows;
    exportBytes = fs.statSync(out).size;
    fs.rmSync(out);
    log(
      `export run ${run + 1}: ${r.rows} rows, ${mb(exportBytes)} MB in ${round(ours[run]! / 1000, 2)} s, peak RSS ${mb(peak)} MB`,
    );

    if (sqlite3.status === 0) {
      const base = path.join(dir, `sqlite3-${run}.csv`);
      const fd = fs.openSync(base, 'w');
      t = performance.now();
      const s = spawnSync('sqlite3', ['-csv', '-header', file, baselineSql], { stdio: ['ignore', fd, 'pipe'] });
      theirs.push(performance.now() - t);
      fs.closeSync(fd);
      if (s.status !== 0) throw new Error(`sqlite3 failed: ${String(s.stderr)}`);
      baselineBytes = fs.statSync(base).size;
      fs.rmSync(base);
      log(`sqlite3 -csv run ${run + 1}: ${mb(baselineBytes)} MB in ${round(theirs[run]! / 1000, 2)} s`);
    }

    // The same rows as an .xlsx workbook (one worker: its worksheet is one deflate stream).
    const book = path.join(dir, `collections-${run}.xlsx`);
    let xpeak = process.memoryUsage.rss();
    const xsampler = setInterval(() => {
      xpeak = Math.max(xpeak, process.memoryUsage.rss());
    }, 5);
    t = performance.now();
    await runExport({
      dbFile: file,
      job: { kind: 'collections' },
      out: book,
      format: 'xlsx',
      now,
      stalePendingAfterMs: STALE,
    });
    xlsxRuns.push(performance.now() - t);
    clearInterval(xsampler);
    xlsxPeakRss = Math.max(xlsxPeakRss, xpeak, process.memoryUsage.rss());
    xlsxBytes = fs.statSync(book).size;
    fs.rmSync(book);
    log(
      `xlsx export run ${run + 1}: ${mb(xlsxBytes)} MB in ${round(xlsxRuns[run]! / 1000, 2)} s, peak RSS ${mb(xpeak)} MB`,
    );
  }
  const xlsxMs = Math.min(...xlsxRuns);
  const exportMs = Math.min(...ours);
  const sqliteMs = theirs.length ? Math.min(...theirs) : null;

  // p95 of a filtered, sorted page of 100 collections.
  const pageQueries = [
    (i: number) => ({
      status: 'COMPLETED',
      sort: { column: 'created_at' as const, dir: 'desc' as const },
      offset: (i % 20) * 100,
      limit: 100,
    }),
    (i: number) => ({
      currency: 'KES',
      sort: { column: 'amount' as const, dir: 'desc' as const },
      offset: (i % 10) * 100,
      limit: 100,
    }),
    (i: number) => ({
      from: gen.lastCreatedAt - ((i % 12) + 1) * 30 * 86_400_000,
      to: gen.lastCreatedAt - (i % 12) * 30 * 86_400_000,
      sort: { column: 'created_at' as const, dir: 'asc' as const },
      limit: 100,
    }),
    (i: number) => ({
      status: ['FAILED', 'CANCELLED'],
      currency: 'USD',
      sort: { column: 'customer' as const, dir: 'asc' as const },
      offset: (i % 5) * 100,
      limit: 100,
    }),
    (i: number) => ({
      text: `md-2026${String((i % 9) + 1).padStart(2, '0')}`,
      sort: { column: 'created_at' as const, dir: 'desc' as const },
      limit: 100,
    }),
    (i: number) => ({
      flagged: true,
      sort: { column: 'created_at' as const, dir: 'desc' as const },
      offset: (i % 10) * 100,
      limit: 100,
    }),
  ];
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  loads.page = load1();
  for (let i = 0; i < 240; i++) {
    const q = pageQueries[i % pageQueries.length]!(Math.floor(i / pageQueries.length));
    t = performance.now();
    cpu = process.cpuUsage();
    const page = listCollections(db, q);
    samples.push(performance.now() - t);
    cpuSamples.push(cpuMsSince(cpu));
    if (page.rows.length === 0 && i < pageQueries.length) log(`note: page query ${i} returned no rows`);
  }
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  log(`page of 100: p50 ${round(percentile(samples, 50), 2)} ms, p95 ${round(percentile(samples, 95), 2)} ms`);

  // Callback ingestion through the local receiver over loopback, signatures verified.
  const signingKey = crypto.randomBytes(32).toString('hex');
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });
  const targets = gen.targets.slice(0, CB);
  const { bodies, headers } = signCallbacks(targets, signingKey, privateKey);
  const eventsBefore = db
    .prepare("SELECT COUNT(*) FROM collection_events WHERE source = 'callback' AND signature = 'verified'")
    .pluck()
    .get() as number;
  // Each stored callback is reconciled in the transaction that stores it, as in the app.
  reconciler.setOptions(db, () => ({ now: Date.now(), stalePendingAfterMs: STALE }));
  const receiver = await startCallbackReceiver({
    db,
    store: sqliteCallbackStore(db, ledger),
    port: 0,
    // A parsed key object: parsing the PEM on every callback costs about a millisecond each.
    getKeys: () => ({ signingKey, servicePublicKey: publicKey }),
    clock: { now: () => Date.now() },
  });
  loads.ingestion = load1();
  cpu = process.cpuUsage();
  const posted = await postCallbacks(receiver.url, bodies, headers, 32);
  const ingestCpuMs = cpuMsSince(cpu);
  const receiverStats = receiver.stats();
  await receiver.close();
  const reconciledAfter = db
    .prepare(
      "SELECT COUNT(*) FROM reconciliation r JOIN collections c ON c.id = r.collection_id WHERE c.id > ? AND r.callback_status = 'COMPLETED'",
    )
    .pluck()
    .get(gen.collections - targets.length) as number;
  const stored =
    (db
      .prepare("SELECT COUNT(*) FROM collection_events WHERE source = 'callback' AND signature = 'verified'")
      .pluck()
      .get() as number) - eventsBefore;
  const perSecond = (targets.length / posted.ms) * 1000;
  log(
    `ingestion: ${targets.length} callbacks in ${round(posted.ms / 1000, 2)} s = ${Math.round(perSecond)}/s (stored ${stored}, failed ${posted.failed})`,
  );
  db.close();

  loads.end = load1();
  const bytes = fileBytes(file);
  log(`the file: ${bytes.perCollection} bytes a collection`);
  const result = {
    node: process.version,
    cpus: os.cpus().length,
    load_average_1m: { start: round(loadStart[0]!, 2), end: round(os.loadavg()[0]!, 2), by_phase: loads },
    data: {
      collections: gen.collections,
      events: gen.events,
      balance_snapshots: gen.snapshots,
      poll_runs: gen.pollRuns,
      database_mb: mb(fs.statSync(file).size),
      database_mb_generated: mb(generatedBytes),
      generate_s: round(generateMs / 1000),
      generate_cpu_s: round(gen.cpuS),
      years: round(years, 2),
      // What the file spends its bytes on at the end of the run (dbstat), per collection; the larger ones.
      bytes_per_collection: Object.fromEntries(
        bytes.objects.filter((o) => o.perCollection >= 1).map((o) => [o.name, o.perCollection]),
      ),
    },
    export: {
      rows: exportRows,
      csv_mb: mb(exportBytes),
      collections_csv_s: round(exportMs / 1000, 2),
      sqlite3_csv_s: sqliteMs === null ? null : round(sqliteMs / 1000, 2),
      sqlite3_csv_mb: mb(baselineBytes),
      sqlite3_version: sqlite3.status === 0 ? sqlite3.stdout.trim().split(' ')[0] : null,
      ratio: sqliteMs === null ? null : round(exportMs / sqliteMs, 2),
      cpu_s: Math.min(...oursCpu),
      target_ratio: TARGETS.exportRatio,
      pass: sqliteMs === null ? null : exportMs <= TARGETS.exportRatio * sqliteMs,
      runs_s: { ours: ours.map((x) => round(x / 1000, 2)), sqlite3: theirs.map((x) => round(x / 1000, 2)) },
      note: 'best of 2 alternating runs each; the same rows and columns (sqlite3 prints raw integers, the report formats times, amounts and guards text); the export splits across worker threads',
    },
    xlsx_export: {
      rows: exportRows,
      xlsx_mb: mb(xlsxBytes),
      xlsx_s: round(xlsxMs / 1000, 2),
      csv_s: round(exportMs / 1000, 2),
      ratio_to_csv: round(xlsxMs / exportMs, 2),
      peak_rss_mb: mb(xlsxPeakRss),
      csv_peak_rss_mb: mb(peakRss),
      runs_s: xlsxRuns.map((x) => round(x / 1000, 2)),
      note: 'best of 2, each run after the CSV export and sqlite3 of the same round; one worker thread formats the typed cells and deflates the worksheet (Node zlib, level 1) into the ZIP; peak RSS of this process sampled every 5 ms',
    },
    reconciliation: {
      collections: recon.collections,
      exceptions: recon.exceptions,
      full_s: round(reconcileMs / 1000, 2),
      full_cpu_s: reconcileCpu,
      per_second: Math.round((recon.collections / reconcileMs) * 1000),
      target_s: TARGETS.reconcileS,
      pass: reconcileMs <= TARGETS.reconcileS * 1000,
      again_of_reconciled_s: round(againMs / 1000, 2),
      again_cpu_s: againCpu,
      again_same_result: again.collections === recon.collections && again.exceptions === recon.exceptions,
      note: 'full_s (the target) recomputes into the empty result table of the freshly generated history; again_of_reconciled_s recomputes the same database once more, where the helpers hand over only rows that differ from the stored ones (nearly none)',
      via: 'reconcileAllInWorker -> reconcileAllOnThreads (main/reconcile/reconcile-on-threads.ts): one helper thread with its own read connection and the worker connection itself claim ranges of collection ids (12,500 doubling to 100,000) from one shared counter, each computing its range with one INSERT ... SELECT over the covering index collection_events_reconcile_terms (migration 014: each event contribution to the packed counters, the packed time and the last callback indexed as expressions, so the aggregates read index columns; the kinds derived once per distinct pair of counters) (the helper into a scratch file shaped like reconciliation, keeping only rows that differ from the stored ones, with no compare for a range that has no stored row; the worker straight into reconciliation) (main/store/sqlite/reconcile/full-pass-sql.ts, range-scratch.ts; main/reconcile/range-worker.ts); the worker connection copies each helper range into reconciliation (whose indexes on outcome are partial, migration 011) by the SQLite transfer optimization (new rows) or an upsert (changed rows) and runs classify() for the few collections left undecided, one transaction per range, the WAL synced in the background as ranges commit and the last commit synced; one WAL checkpoint at the end, after the result is reported',
    },
    ingestion: {
      callbacks: targets.length,
      stored,
      reconciled: reconciledAfter,
      failed: posted.failed,
      http_statuses: posted.statuses,
      seconds: round(posted.ms / 1000, 2),
      per_second: Math.round(perSecond),
      cpu_us_per_callback: Math.round((ingestCpuMs * 1000) / targets.length),
      commits: receiverStats.commits,
      largest_group: receiverStats.largestGroup,
      mean_group: round(receiverStats.deliveries / Math.max(1, receiverStats.commits)),
      target_per_second: TARGETS.ingestPerSecond,
      pass:
        perSecond >= TARGETS.ingestPerSecond &&
        posted.failed === 0 &&
        stored === targets.length &&
        reconciledAfter === targets.length,
      via: 'main/callbacks/receiver.ts (Fastify) on 127.0.0.1; client: a worker thread writing raw HTTP/1.1 on 32 keep-alive connections, one request in flight each; each callback: HMAC-SHA256 verified (the RSA-4096 signature is checked only when the HMAC is not valid: either is enough), stored through the ledger in a group commit (the deliveries of one event-loop turn share one transaction, committed with synchronous=NORMAL; each is answered only after the WAL is fdatasynced on the thread pool, two groups in flight, main/callbacks/callback-store.ts), and each touched collection reconciled once at the end of the group, in the same transaction (Reconciler.onceAfter -> Reconciler.afterAppend)',
      note: 'one RSA signature is genuine, the rest reuse it (signing 10,000 with RSA-4096 would take ~65 s); a valid HMAC makes each verified, so the RSA check is skipped. The service key is given to the receiver as a parsed KeyObject (main/app/workspace.ts passes the PEM text; main/service/verify-callback.ts keeps the key parsed from it, so that costs the same)',
    },
    page: {
      samples: samples.length,
      p50_ms: round(percentile(samples, 50), 2),
      p95_ms: round(percentile(samples, 95), 2),
      max_ms: round(samples[samples.length - 1]!, 2),
      cpu_p50_ms: round(percentile(cpuSamples, 50), 2),
      cpu_p95_ms: round(percentile(cpuSamples, 95), 2),
      target_p95_ms: TARGETS.pageP95Ms,
      pass: percentile(samples, 95) <= TARGETS.pageP95Ms,
      via: 'listCollections (main/collections/query.ts; its query planner main/store/sqlite/read/collections-page.ts): status/currency/date/text/flagged filters, sorted by time, amount or customer, offsets up to 1,900; each page includes its total, counted on the first page of a filter and reused (per connection) until a write',
    },
    memory: {
      peak_rss_mb_during_export: mb(peakRss),
      rss_mb_before_export: mb(baselineRss),
      target_mb: TARGETS.exportPeakMb,
      pass: mb(peakRss) <= TARGETS.exportPeakMb,
      note: 'process RSS (main thread + export worker threads) sampled every 5 ms during the exports',
    },
    total_s: round((performance.now() - benchStart) / 1000),
  };
  const verdict = (pass: boolean | null) => (pass === null ? 'not measured' : pass ? 'pass' : 'FAIL');
  log(
    `targets: export ${verdict(result.export.pass)}, full reconciliation ${verdict(result.reconciliation.pass)}, ingestion ${verdict(result.ingestion.pass)}, page ${verdict(result.page.pass)}, memory ${verdict(result.memory.pass)}`,
  );
  if (!opt.keep) fs.rmSync(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
  return result;
}

async function main(): Promise<void> {
  const sizes = (opt.sizes ?? opt.collections).split(',').map((x) => Number(x.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 100))
    throw new Error(`--sizes: each size is a whole number of collections, at least 100 (got "${opt.sizes}")`);
  const runs: SizeRun[] = [];
  for (const n of sizes) runs.push(await benchAt(n));
  if (runs.length === 1) {
    process.stdout.write(JSON.stringify(runs[0], null, 2) + '\n');
    return;
  }
  const growth = growthTable(runs);
  process.stderr.write(growthMarkdown(growth) + '\n');
  process.stdout.write(JSON.stringify({ sizes, growth, runs }, null, 2) + '\n');
}

await main();
