// The page part of `npm run bench` on its own, to compare query planners in ONE process (the machine's
// load moves between runs): the bench's six page queries, 40 of each, run against each source tree given
// with --impl, alternating sample by sample, each tree on its own copy of a generated database (--db,
// one file per tree, e.g. a database `npm run bench -- --keep` left, copied; each tree migrates its own).
// Prints each query kind's median and p95 per tree (wall and this thread's CPU), the p95 over all, and
// whether every page (rows and total) is the same in every tree.
//   npx tsx test/bench/page-ab.ts --db A.sqlite[,B.sqlite] [--impl DIR[,DIR]] [--rounds N]
// DIR is a folder holding main/ (e.g. an exported older commit with node_modules linked next to it).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import type { ListQuery } from '../../main/collections/query.js';

type QueryModule = typeof import('../../main/collections/query.js');
type DbModule = typeof import('../../main/store/sqlite/connection.js');

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') },
    db: { type: 'string' },
    rounds: { type: 'string', default: '40' },
  },
  strict: true,
});
if (!opt.db) throw new Error('--db FILE[,FILE]: a generated database (npm run bench -- --keep), one copy per tree');
const roots = opt.impl.split(',').map((d) => path.resolve(d));
const files = opt.db.split(',').map((f) => path.resolve(f));
if (files.length !== roots.length) throw new Error('--db needs one file per --impl tree');
const rounds = Number(opt.rounds);

const impls = await Promise.all(
  roots.map(async (root, i) => {
    const q = (await import(pathToFileURL(path.join(root, 'main/collections/query.ts')).href)) as QueryModule;
    const c = (await import(pathToFileURL(path.join(root, 'main/store/sqlite/connection.ts')).href)) as DbModule;
    const db = c.openDatabase(files[i]!);
    return { root, name: `${i}:${path.basename(root)}`, q, db };
  }),
);
const last = impls[0]!.db.prepare('SELECT max(created_at) FROM collections').pluck().get() as number;

// The bench's queries (test/bench/run.ts), by name.
const kinds: [string, (i: number) => ListQuery][] = [
  [
    'completed by time',
    (i) => ({ status: 'COMPLETED', sort: { column: 'created_at', dir: 'desc' }, offset: (i % 20) * 100, limit: 100 }),
  ],
  [
    'KES by amount',
    (i) => ({ currency: 'KES', sort: { column: 'amount', dir: 'desc' }, offset: (i % 10) * 100, limit: 100 }),
  ],
  [
    'a month by time',
    (i) => ({
      from: last - ((i % 12) + 1) * 30 * 86_400_000,
      to: last - (i % 12) * 30 * 86_400_000,
      sort: { column: 'created_at', dir: 'asc' },
      limit: 100,
    }),
  ],
  [
    'failed+cancelled USD by customer',
    (i) => ({
      status: ['FAILED', 'CANCELLED'],
      currency: 'USD',
      sort: { column: 'customer', dir: 'asc' },
      offset: (i % 5) * 100,
      limit: 100,
    }),
  ],
  [
    'text prefix by time',
    (i) => ({
      text: `md-2026${String((i % 9) + 1).padStart(2, '0')}`,
      sort: { column: 'created_at', dir: 'desc' },
      limit: 100,
    }),
  ],
  [
    'flagged by time',
    (i) => ({ flagged: true, sort: { column: 'created_at', dir: 'desc' }, offset: (i % 10) * 100, limit: 100 }),
  ],
];

const wall = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
const all = new Map<string, number[]>();
const allCpu = new Map<string, number[]>();
let differ = 0;
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let round = 0; round < rounds; round++) {
  for (const [kind, make] of kinds) {
    const q = make(round);
    const digests = new Set<string>();
    for (const impl of round % 2 ? [...impls].reverse() : impls) {
      const t = performance.now();
      const c = cpuNow();
      const page = impl.q.listCollections(impl.db, q);
      const ms = performance.now() - t;
      const cms = cpuNow() - c;
      const key = `${impl.name}\u0000${kind}`;
      (wall.get(key) ?? wall.set(key, []).get(key)!).push(ms);
      (cpu.get(key) ?? cpu.set(key, []).get(key)!).push(cms);
      (all.get(impl.name) ?? all.set(impl.name, []).get(impl.name)!).push(ms);
      (allCpu.get(impl.name) ?? allCpu.set(impl.name, []).get(impl.name)!).push(cms);
      digests.add(createHash('sha256').update(JSON.stringify(page)).digest('hex'));
    }
    if (digests.size > 1) {
      differ++;
      process.stderr.write(`DIFFERENT page for ${kind} ${JSON.stringify(q)}\n`);
    }
  }
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const r2 = (n: number) => Math.round(n * 100) / 100;
const out: Record<string, unknown> = {};
for (const impl of impls) {
  const per: Record<string, unknown> = {};
  for (const [kind] of kinds) {
    const w = wall.get(`${impl.name}\u0000${kind}`)!;
    const c = cpu.get(`${impl.name}\u0000${kind}`)!;
    per[kind] = { wallP50: r2(pct(w, 50)), wallP95: r2(pct(w, 95)), cpuP50: r2(pct(c, 50)), cpuP95: r2(pct(c, 95)) };
  }
  const a = all.get(impl.name)!;
  const ac = allCpu.get(impl.name)!;
  out[impl.name] = {
    p50: r2(pct(a, 50)),
    p95: r2(pct(a, 95)),
    max: r2(Math.max(...a)),
    cpuP50: r2(pct(ac, 50)),
    cpuP95: r2(pct(ac, 95)),
    byKind: per,
  };
}
process.stdout.write(
  JSON.stringify({ samplesPerTree: rounds * kinds.length, pagesDiffering: differ, trees: out }, null, 2) + '\n',
);
for (const impl of impls) impl.db.close();
