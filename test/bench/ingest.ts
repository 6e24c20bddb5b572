// The ingestion part of `npm run bench` on its own, to compare receivers in ONE process (the machine's
// load moves between runs): builds a smaller synthetic history once, then for each round and each
// source tree given with --impl (default: this one) copies it, opens it, starts that tree's receiver
// and posts the signed callbacks with the bench's concurrency.
//   npx tsx test/bench/ingest.ts [--impl DIR,DIR] [--collections N] [--callbacks N] [--rounds N] [--concurrency N]
// DIR is a folder holding main/ (e.g. an exported older commit with node_modules linked next to it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Session } from 'node:inspector/promises';
import { generate } from './generate.js';
import { postCallbacks, signCallbacks } from './post-callbacks.js';

type ReceiverModule = typeof import('../../main/callbacks/receiver.js');
type DbModule = typeof import('../../main/store/db.js');
type ReconcileModule = typeof import('../../main/reconcile/reconcile.js');

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') },
    collections: { type: 'string', default: '200000' },
    callbacks: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    /** Writes a .cpuprofile of the main thread's ingestion (the last round of each tree) into this folder. */
    profile: { type: 'string' },
  },
  strict: true,
});
const log = (msg: string) => process.stderr.write(`[ingest ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const STALE = 30 * 60_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-ingest-'));
const template = path.join(dir, 'template.sqlite');
const roots = opt.impl.split(',').map((d) => path.resolve(d));
const impls = await Promise.all(
  roots.map(async (root) => {
    const load = async <T>(rel: string) => (await import(pathToFileURL(path.join(root, rel)).href)) as T;
    return {
      root,
      receiver: await load<ReceiverModule>('main/callbacks/receiver.ts'),
      db: await load<DbModule>('main/store/db.ts'),
      reconcile: await load<ReconcileModule>('main/reconcile/reconcile.ts'),
    };
  }),
);

const CB = Number(opt.callbacks);
// The template has the schema of the first tree given: a newer tree migrates its copy when it opens it
// (and that is checkpointed before the clock starts), an older one could not open a newer schema.
const gen = generate({
  file: template,
  collections: Number(opt.collections),
  snapshots: 1000,
  ingestTargets: CB,
  now: Date.now(),
  open: (file) => impls[0]!.db.openDatabase(file),
});
log(`generated ${gen.collections} collections, ${gen.events} events in ${dir}`);

// As the bench does, the ingestion runs after a full reconciliation: every collection has its row.
{
  const db = impls[0]!.db.openDatabase(template);
  await impls[0]!.reconcile.reconcileAll(db, { now: Date.now(), stalePendingAfterMs: STALE });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const signingKey = crypto.randomBytes(32).toString('hex');
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });
const { bodies, headers } = signCallbacks(gen.targets, signingKey, privateKey);
const results = new Map<string, number[]>(roots.map((r) => [r, []]));
const cpu = new Map<string, number[]>(roots.map((r) => [r, []]));

for (let round = 0; round < Number(opt.rounds); round++) {
  for (const impl of round % 2 ? [...impls].reverse() : impls) {
    const file = path.join(dir, `run.sqlite`);
    for (const f of [file, file + '-wal', file + '-shm']) fs.rmSync(f, { force: true });
    fs.copyFileSync(template, file);
    const db = impl.db.openDatabase(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    impl.reconcile.setReconcileOptions(db, () => ({ now: Date.now(), stalePendingAfterMs: STALE }));
    const receiver = await impl.receiver.startCallbackReceiver({
      db,
      port: 0,
      getKeys: () => ({ signingKey, servicePublicKey: publicKey }),
      clock: { now: () => Date.now() },
    });
    const load = os.loadavg()[0]!;
    const profiling = opt.profile && round === Number(opt.rounds) - 1 ? new Session() : null;
    if (profiling) {
      profiling.connect();
      await profiling.post('Profiler.enable');
      await profiling.post('Profiler.start');
    }
    const cpu0 = mainThreadCpuMs();
    const posted = await postCallbacks(receiver.url, bodies, headers, Number(opt.concurrency));
    if (profiling) {
      const { profile } = await profiling.post('Profiler.stop');
      fs.mkdirSync(opt.profile!, { recursive: true });
      fs.writeFileSync(path.join(opt.profile!, `${path.basename(impl.root)}.cpuprofile`), JSON.stringify(profile));
      profiling.disconnect();
    }
    const cpuUs = ((mainThreadCpuMs() - cpu0) * 1000) / CB;
    cpu.get(impl.root)!.push(Math.round(cpuUs));
    const stats = receiver.stats();
    await receiver.close();
    const reconciled = db
      .prepare("SELECT COUNT(*) FROM reconciliation WHERE collection_id > ? AND callback_status = 'COMPLETED'")
      .pluck()
      .get(gen.collections - CB) as number;
    db.close();
    const perSecond = Math.round((CB / posted.ms) * 1000);
    results.get(impl.root)!.push(perSecond);
    log(
      `${path.basename(impl.root)}: ${perSecond}/s, ${Math.round(cpuUs)} µs CPU each, failed ${posted.failed}, reconciled ${reconciled}/${CB}, commits ${stats.commits}, ` +
        `mean group ${(stats.deliveries / Math.max(1, stats.commits)).toFixed(1)}, largest ${stats.largestGroup}, load ${load.toFixed(2)}`,
    );
  }
}
/** CPU time (ms) of this process's main thread so far: the receiver's cost, whatever else loads the machine. */
function mainThreadCpuMs(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const first = median(results.get(roots[0]!)!);
for (const [root, xs] of results)
  process.stdout.write(
    `${root}: median ${median(xs)}/s (${xs.join(', ')}) ratio to first ${(median(xs) / first).toFixed(2)}; ` +
      `main-thread CPU per callback median ${median(cpu.get(root)!)} µs (${cpu.get(root)!.join(', ')})\n`,
  );
fs.rmSync(dir, { recursive: true, force: true });
