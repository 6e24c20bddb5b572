// The export part of `npm run bench` on its own, to compare exporters in ONE process (the machine's load
// moves between runs): the collections CSV export of each source tree given with --impl and `sqlite3 -csv`
// of the same rows, alternating, on a generated database (--db, e.g. one `npm run bench -- --keep` left:
// one file per tree, each tree migrates its own copy). Prints each one's runs (wall, the process's CPU,
// all threads), the best of each, the ratio to sqlite3, the peak RSS above the RSS before each run, and
// whether the trees wrote the same bytes.
//   npx tsx test/bench/export-ab.ts --db A.sqlite[,B.sqlite] [--impl DIR[,DIR]] [--rounds N]
// Under tsx the export workers load TypeScript through tsx (launch-worker.ts): their start costs more
// than in the built app, the same for every tree.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

type ReportsModule = typeof import('../../main/reports/index.js');
type ReportQueries = typeof import('../../main/store/sqlite/read/collections-report.js');
type DbModule = typeof import('../../main/store/sqlite/connection.js');

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') },
    db: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    sqlite3: { type: 'boolean', default: true },
  },
  strict: true,
});
if (!opt.db) throw new Error('--db FILE[,FILE]: a generated database (npm run bench -- --keep), one copy per tree');
const roots = opt.impl.split(',').map((d) => path.resolve(d));
const files = opt.db.split(',').map((f) => path.resolve(f));
if (files.length !== roots.length) throw new Error('--db needs one file per --impl tree');

const impls = await Promise.all(
  roots.map(async (root, i) => {
    const reports = (await import(pathToFileURL(path.join(root, 'main/reports/index.ts')).href)) as ReportsModule;
    const queries = (await import(
      pathToFileURL(path.join(root, 'main/store/sqlite/read/collections-report.ts')).href
    )) as ReportQueries;
    const c = (await import(pathToFileURL(path.join(root, 'main/store/sqlite/connection.ts')).href)) as DbModule;
    c.openDatabase(files[i]!).close(); // migrated by its own tree
    return { name: `${i}:${path.basename(root)}`, reports, queries, file: files[i]! };
  }),
);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-export-ab-'));
const now = Date.now();
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const runs = new Map<string, { wall: number; cpu: number; peakMb: number }[]>();
const digests = new Map<string, Set<string>>();
const record = (name: string, r: { wall: number; cpu: number; peakMb: number }) =>
  (runs.get(name) ?? runs.set(name, []).get(name)!).push(r);

for (let round = 0; round < Number(opt.rounds); round++) {
  for (const impl of round % 2 ? [...impls].reverse() : impls) {
    const out = path.join(dir, `${impl.name.replace(/\W/g, '_')}.csv`);
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    const t = performance.now();
    const c = cpuSeconds();
    await impl.reports.runExport({
      dbFile: impl.file,
      job: { kind: 'collections' },
      out,
      now,
      stalePendingAfterMs: 1_800_000,
    });
    const r = { wall: (performance.now() - t) / 1000, cpu: cpuSeconds() - c, peakMb: 0 };
    clearInterval(sampler);
    r.peakMb = (Math.max(peak, process.memoryUsage.rss()) - before) / 1048576;
    record(impl.name, r);
    const digest = crypto.createHash('sha256').update(fs.readFileSync(out)).digest('hex');
    (digests.get(impl.name) ?? digests.set(impl.name, new Set()).get(impl.name)!).add(digest);
    fs.rmSync(out);
    process.stderr.write(
      `${impl.name}: ${r.wall.toFixed(2)} s, CPU ${r.cpu.toFixed(2)} s, +${r.peakMb.toFixed(1)} MB\n`,
    );
  }
  if (opt.sqlite3) {
    const base = path.join(dir, 'sqlite3.csv');
    const fd = fs.openSync(base, 'w');
    const sql = impls[0]!.queries.collectionsBaselineQuery().sql.replace(/\s+/g, ' ');
    const t = performance.now();
    const s = spawnSync('sqlite3', ['-csv', '-header', impls[0]!.file, sql], { stdio: ['ignore', fd, 'pipe'] });
    const wall = (performance.now() - t) / 1000;
    fs.closeSync(fd);
    fs.rmSync(base);
    if (s.status !== 0) throw new Error(`sqlite3 failed: ${String(s.stderr)}`);
    record('sqlite3', { wall, cpu: NaN, peakMb: NaN });
    process.stderr.write(`sqlite3 -csv: ${wall.toFixed(2)} s\n`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
const best = (name: string) => Math.min(...runs.get(name)!.map((r) => r.wall));
const r2 = (n: number) => Math.round(n * 100) / 100;
const shell = runs.has('sqlite3') ? best('sqlite3') : null;
const out: Record<string, unknown> = {};
for (const [name, rs] of runs)
  out[name] = {
    runs: rs.map((r) => ({ wall: r2(r.wall), cpu: r2(r.cpu), peakMb: r2(r.peakMb) })),
    best: r2(best(name)),
    ...(shell && name !== 'sqlite3' ? { ratio: r2(best(name) / shell) } : {}),
  };
const same = new Set([...digests.values()].flatMap((s) => [...s])).size === 1;
process.stdout.write(
  JSON.stringify({ loadAverage: os.loadavg().map(r2), sameBytesInEveryTree: same, results: out }, null, 2) + '\n',
);
