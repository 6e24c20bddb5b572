// A new desk's start from the team snapshot, two source trees against each other in ONE run (the
// machine's load moves between runs): a throw-away PostgreSQL, the bench's history (generate.ts) loaded
// once per tree into a database of its own (chained as the team's is: team-history.ts), a snapshot
// published there by that tree, then rounds in which each tree's new desk starts from its snapshot in
// turn (snapshotStart as the sync calls it; signatures taken from the snapshot and re-checked after, as
// a desk does by default). Prints each start's wall time, the process's CPU (every thread) and each
// phase, the medians, and the load average.
//   npm run build --silent && node dist/test/bench/snapshot-ab.js --impl DIR,DIR [--collections N] [--rounds N]
// DIR is a folder holding a built tree (dist/; e.g. an exported older commit with node_modules linked
// and `npm run build` run in it). As root, set TMPDIR to a folder the `postgres` user can reach.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer, stopServerSync } from '../support/postgres-server.js';
import { BENCH_SIGNING_KEY, generate } from './generate.js';
import { createDb, loadHistory } from './team-history.js';

type Connection = typeof import('../../main/store/sqlite/connection.js');
type Pool = typeof import('../../main/team/pool.js');
type Migrate = typeof import('../../main/team/migrate.js');
type Publish = typeof import('../../main/team/snapshot/publish.js');
type Start = typeof import('../../main/team/snapshot/start.js');
/**
 * A tree's composition of its ledger: this one composes it (composeLedger) and passes it to the start; an
 * older tree wired it once at its start (wireLedgerReconciliation), as its composeCore did.
 */
type LedgerModule = Partial<typeof import('../../main/app/ledger.js')> & { wireLedgerReconciliation?(): void };

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..') },
    collections: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
  },
  strict: true,
});
const log = (msg: string) => process.stderr.write(`[snapshot-ab ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const roots = opt.impl.split(',').map((d) => path.resolve(d));
const keys = { signingKey: BENCH_SIGNING_KEY, servicePublicKey: null };
const load = () => Number(os.loadavg()[0]!.toFixed(2));

const impls = await Promise.all(
  roots.map(async (root, i) => {
    const at = (m: string) => pathToFileURL(path.join(root, 'dist/main', m)).href;
    const composition = (await import(at('app/ledger.js'))) as LedgerModule;
    composition.wireLedgerReconciliation?.();
    return {
      name: `${i}:${path.basename(root)}`,
      ledger: composition.composeLedger?.().ledger ?? null,
      connection: (await import(at('store/sqlite/connection.js'))) as Connection,
      pool: (await import(at('team/pool.js'))) as Pool,
      migrate: (await import(at('team/migrate.js'))) as Migrate,
      publish: (await import(at('team/snapshot/publish.js'))) as Publish,
      start: (await import(at('team/snapshot/start.js'))) as Start,
    };
  }),
);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'md-snapshot-ab-'));
fs.chmodSync(work, 0o755);
const server = await startServer();
try {
  const source = path.join(work, 'history.sqlite');
  log(`generating ${Number(opt.collections).toLocaleString('en')} collections`);
  generate({ file: source, collections: Number(opt.collections), snapshots: 0, ingestTargets: 0, now: Date.now() });
  const setups = [];
  for (const [i, impl] of impls.entries()) {
    const pool = impl.pool.openTeamPool(await createDb(server, `team_ab_${i}`), { max: 4 });
    await impl.migrate.migrate(pool);
    const events = await loadHistory(pool, source);
    const t = performance.now();
    const info = await impl.publish.publishSnapshot({ pool, now: () => Date.now(), scratchDir: work, keys });
    log(
      `${impl.name}: ${events.toLocaleString('en')} events loaded, snapshot published in ${((performance.now() - t) / 1000).toFixed(1)} s (${(info.bytes / 1048576).toFixed(1)} MiB)`,
    );
    setups.push({ impl, pool, events, gzipMiB: Number((info.bytes / 1048576).toFixed(1)) });
  }
  const runs = new Map<
    string,
    { seconds: number; cpuSeconds: number; load: number; phases: Record<string, number[]> }[]
  >();
  for (let round = 0; round < Number(opt.rounds); round++) {
    for (const s of round % 2 ? [...setups].reverse() : setups) {
      const desk = path.join(work, `desk-${round}-${s.impl.name.replace(/\W/g, '_')}`);
      const db = s.impl.connection.openDatabase(path.join(desk, 'desk.sqlite'));
      const loadAtStart = load();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      let mark = { t: t0, c: c0 };
      const phases: Record<string, number[]> = {};
      const r = await s.impl.start.snapshotStart({
        pool: s.pool,
        db,
        ...(s.impl.ledger ? { ledger: s.impl.ledger } : {}),
        now: () => Date.now(),
        keys: () => keys,
        onPhase: (p) => {
          const t = performance.now();
          const c = process.cpuUsage();
          phases[p] = [
            Number(((t - mark.t) / 1000).toFixed(2)),
            Number(((c.user - mark.c.user + c.system - mark.c.system) / 1e6).toFixed(2)),
          ];
          mark = { t, c };
        },
      } as Parameters<Start['snapshotStart']>[0]);
      const c = process.cpuUsage(c0);
      const seconds = Number(((performance.now() - t0) / 1000).toFixed(2));
      db.close();
      fs.rmSync(desk, { recursive: true, force: true });
      if (!r?.started)
        throw new Error(`${s.impl.name}: the snapshot start did not happen: ${r ? r.reason : 'stopped'}`);
      const run = { seconds, cpuSeconds: Number(((c.user + c.system) / 1e6).toFixed(2)), load: loadAtStart, phases };
      (runs.get(s.impl.name) ?? runs.set(s.impl.name, []).get(s.impl.name)!).push(run);
      log(`${s.impl.name}: ${seconds} s, CPU ${run.cpuSeconds} s, load ${loadAtStart}, ${JSON.stringify(phases)}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const out: Record<string, unknown> = {};
  for (const s of setups) {
    const rs = runs.get(s.impl.name)!;
    out[s.impl.name] = {
      events: s.events,
      snapshotGzipMiB: s.gzipMiB,
      medianSeconds: median(rs.map((r) => r.seconds)),
      medianCpuSeconds: median(rs.map((r) => r.cpuSeconds)),
      runs: rs,
    };
  }
  process.stdout.write(
    JSON.stringify(
      { collections: Number(opt.collections), cpus: os.cpus().length, loadAtEnd: load(), trees: out },
      null,
      2,
    ) + '\n',
  );
  for (const s of setups) await s.pool.end();
} finally {
  stopServerSync(server.dir, server.binDir);
  fs.rmSync(work, { recursive: true, force: true });
}
