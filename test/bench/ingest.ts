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
type DbModule = typeof import('../../main/store/sqlite/connection.js');
type ReconcileModule = typeof import('../../main/reconcile/reconcile.js');
type CallbackStore = import('../../main/callbacks/callback-store.js').CallbackStore;
type CallbackStoreModule = typeof import('../../main/callbacks/callback-store.js');
type Db = import('../../main/store/sqlite/connection.js').Db;
type ReconcileOptions = import('../../main/reconcile/incremental.js').ReconcileOptions;
/**
 * A tree's composition of its ledger: this one composes it (composeLedger) and passes it; an older tree
 * wired it once at its start (wireLedgerReconciliation), its clock set per connection by its reconcile
 * module (setReconcileOptions).
 */
type LedgerModule = Partial<typeof import('../../main/app/ledger.js')> & { wireLedgerReconciliation?(): void };
type OlderReconcile = { setReconcileOptions?(db: Db, source: () => ReconcileOptions): void };
/**
 * A tree whose callback store runs on a worker thread (branch ingestworker2-worker, measured slower than
 * the store on the main thread: README, Benchmarks) exports this; the bench runs it, as that tree's desktop does.
 */
interface WorkerStoreModule {
  workerCallbackStore(
    dbFile: string,
    o: { stalePendingAfterMs?: number; maxCommitsInFlight?: number },
  ): CallbackStore & { ready(): Promise<void>; close(): Promise<void> };
}

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..') },
    collections: { type: 'string', default: '200000' },
    callbacks: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    /** The worker store's maxCommitsInFlight (default: its own). */
    'in-flight': { type: 'string' },
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
    // A tree whose ledger its composition root composes (main/app/ledger.ts) gets it as its desktop does.
    const composition = fs.existsSync(path.join(root, 'main/app/ledger.ts'))
      ? await load<LedgerModule>('main/app/ledger.ts')
      : null;
    composition?.wireLedgerReconciliation?.();
    const composed = composition?.composeLedger?.() ?? null;
    return {
      root,
      composed,
      callbackStore: composed ? await load<CallbackStoreModule>('main/callbacks/callback-store.ts') : null,
      receiver: await load<ReceiverModule>('main/callbacks/receiver.ts'),
      // The database opener moved to main/store/sqlite/ (issue 22); older trees keep it in main/store/db.ts.
      db: await load<DbModule>(
        fs.existsSync(path.join(root, 'main/store/sqlite/connection.ts'))
          ? 'main/store/sqlite/connection.ts'
          : 'main/store/db.ts',
      ),
      reconcile: await load<ReconcileModule & OlderReconcile>('main/reconcile/reconcile.ts'),
      // A tree with a worker store runs it; main's has none.
      workerStore: fs.existsSync(path.join(root, 'main/callbacks/worker-store.ts'))
        ? await load<WorkerStoreModule>('main/callbacks/worker-store.ts')
        : null,
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
const procCpu = new Map<string, number[]>(roots.map((r) => [r, []]));

for (let round = 0; round < Number(opt.rounds); round++) {
  for (const impl of round % 2 ? [...impls].reverse() : impls) {
    const file = path.join(dir, `run.sqlite`);
    for (const f of [file, file + '-wal', file + '-shm']) fs.rmSync(f, { force: true });
    fs.copyFileSync(template, file);
    const db = impl.db.openDatabase(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const options = () => ({ now: Date.now(), stalePendingAfterMs: STALE });
    if (impl.composed) impl.composed.reconciler.setOptions(db, options);
    else impl.reconcile.setReconcileOptions?.(db, options);
    const worker = impl.workerStore?.workerCallbackStore(file, {
      stalePendingAfterMs: STALE,
      ...(opt['in-flight'] ? { maxCommitsInFlight: Number(opt['in-flight']) } : {}),
    });
    // This tree's desktop store is built on its ledger; an older one's receiver made its own.
    const store =
      worker ?? (impl.composed ? impl.callbackStore!.sqliteCallbackStore(db, impl.composed.ledger) : undefined);
    // The old tree opens its connection before the clock starts: so does the worker.
    await worker?.ready();
    const receiver = await impl.receiver.startCallbackReceiver({
      db,
      ...(store ? { store } : {}),
      port: 0,
      getKeys: () => ({ signingKey, servicePublicKey: publicKey }),
      clock: { now: () => Date.now() },
    } as Parameters<ReceiverModule['startCallbackReceiver']>[0]);
    const load = os.loadavg()[0]!;
    const profiling = opt.profile && round === Number(opt.rounds) - 1 ? new Session() : null;
    if (profiling) {
      profiling.connect();
      await profiling.post('Profiler.enable');
      await profiling.post('Profiler.start');
    }
    const threads0 = threadCpuMs();
    const cpu0 = mainThreadCpuMs();
    const proc0 = process.cpuUsage();
    const posted = await postCallbacks(receiver.url, bodies, headers, Number(opt.concurrency));
    const procUsage = process.cpuUsage(proc0);
    const threads = [...threadCpuMs()]
      .map(([tid, ms]) => ({ tid, us: ((ms - (threads0.get(tid) ?? 0)) * 1000) / CB }))
      .filter((t) => t.us >= 5)
      .sort((a, b) => b.us - a.us);
    if (profiling) {
      const { profile } = await profiling.post('Profiler.stop');
      fs.mkdirSync(opt.profile!, { recursive: true });
      fs.writeFileSync(path.join(opt.profile!, `${path.basename(impl.root)}.cpuprofile`), JSON.stringify(profile));
      profiling.disconnect();
    }
    const cpuUs = ((mainThreadCpuMs() - cpu0) * 1000) / CB;
    cpu.get(impl.root)!.push(Math.round(cpuUs));
    // The whole process: main thread, the posting client's thread (and a worker store's), V8's and libuv's.
    const procUs = (procUsage.user + procUsage.system) / CB;
    procCpu.get(impl.root)!.push(Math.round(procUs));
    const stats = receiver.stats();
    await receiver.close();
    await worker?.close(); // a no-op where that tree's receiver closed it already
    const reconciled = db
      .prepare("SELECT COUNT(*) FROM reconciliation WHERE collection_id > ? AND callback_status = 'COMPLETED'")
      .pluck()
      .get(gen.collections - CB) as number;
    db.close();
    const perSecond = Math.round((CB / posted.ms) * 1000);
    results.get(impl.root)!.push(perSecond);
    log(
      `${path.basename(impl.root)}: ${perSecond}/s, ${Math.round(cpuUs)} µs main-thread CPU each (process ${Math.round(procUs)} µs), ` +
        `${Math.round((stats.commits / posted.ms) * 1000)} groups/s, failed ${posted.failed}, reconciled ${reconciled}/${CB}, commits ${stats.commits}, ` +
        `mean group ${(stats.deliveries / Math.max(1, stats.commits)).toFixed(1)}, largest ${stats.largestGroup}, load ${load.toFixed(2)}; ` +
        `µs CPU per callback by thread: ${threads.map((t) => `${t.tid === process.pid ? 'main' : t.tid} ${Math.round(t.us)}`).join(', ')}`,
    );
  }
}
/** CPU time (ms) of this process's main thread so far: the receiver's cost, whatever else loads the machine. */
function mainThreadCpuMs(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
}

/** CPU time (ms) of each of this process's threads (main, the store's worker, the client's, V8's and libuv's). */
function threadCpuMs(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const first = median(results.get(roots[0]!)!);
for (const [root, xs] of results)
  process.stdout.write(
    `${root}: median ${median(xs)}/s (${xs.join(', ')}) ratio to first ${(median(xs) / first).toFixed(2)}; ` +
      `main-thread CPU per callback median ${median(cpu.get(root)!)} µs (${cpu.get(root)!.join(', ')}), ` +
      `process CPU per callback median ${median(procCpu.get(root)!)} µs (${procCpu.get(root)!.join(', ')})\n`,
  );
fs.rmSync(dir, { recursive: true, force: true });
