// Callback ingestion through `serve` into PostgreSQL (issue 31): signed callbacks posted over loopback
// HTTP (the bench's poster, post-callbacks.ts, a worker thread of this process) to one `serve` instance
// and to two, each instance a process of its own (serve-child.ts), every callback verified (HMAC) and
// stored in team.events with a durable commit (fsync, synchronous_commit and full_page_writes on) and in
// the instance's journal before its 200. With two instances the poster spreads its connections over both,
// as a reverse proxy's upstream block does. Goals: one instance >= 10,000/s; two >= 1.7 times one.
//
// Before and after in the same run: --before REV exports that revision's tree (node_modules linked to
// this one's) and runs it in alternating rounds with this tree, each against a database its own
// migrations made on the same PostgreSQL (or --impl DIR,DIR: trees already on disk).
//
// Per round it prints callbacks/s and where the CPU went, per callback: each serve process (all its
// threads, and its main thread), PostgreSQL (all its processes), the poster (its posting thread over the timed posting, and this thread), and the
// machine's total against its cores; and the load average. Every round checks each callback was stored
// exactly once.
//   npm run bench:serve -- [--callbacks N] [--concurrency N] [--rounds N] [--instances 1,2] [--warmup N]
//                          [--before REV | --impl DIR,DIR] [--verify-threads N]
// For a closer look: SERVE_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the
// instances, SERVE_BENCH_TIDS=1 names each of their threads by its id in the per-thread CPU.
// PostgreSQL runs as the `postgres` user when this runs as root: TMPDIR must be a folder it can reach.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postCallbacks, signCallbacks } from './post-callbacks.js';
import { serverUrl, startServer, stopServerSync } from '../support/postgres-server.js';

type MigrateModule = typeof import('../../main/team/migrate.js');
type OperatorsModule = typeof import('../../main/operations/operators.js');
type PoolModule = typeof import('../../main/team/pool.js');

const here = path.dirname(fileURLToPath(import.meta.url));
const thisTree = path.resolve(here, '../..');
const { values: opt } = parseArgs({
  options: {
    callbacks: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '128' },
    rounds: { type: 'string', default: '3' },
    instances: { type: 'string', default: '1,2' },
    before: { type: 'string' },
    impl: { type: 'string' },
    'verify-threads': { type: 'string' },
    /** Callbacks posted to the instances before the measured ones: V8 compiles the hot path meanwhile. */
    warmup: { type: 'string', default: '5000' },
  },
  strict: true,
});
const CB = Number(opt.callbacks);
const CORES = os.availableParallelism();
const log = (msg: string) => process.stderr.write(`[serve-bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** CPU ms of a process (all its threads), or of one thread of it (`tid`). */
function cpuMs(pid: number, tid?: number): number {
  const stat = fs.readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in ticks of 1/100 s
}

/** CPU ms of each thread of a process, by the thread's name (several of one name added up). */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name =
      Number(tid) === pid
        ? 'main'
        : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) + (process.env.SERVE_BENCH_TIDS ? '#' + tid : '');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100);
  }
  return out;
}

/** CPU ms of the PostgreSQL server: the postmaster and its children (backends, WAL writer...). */
function serverCpuMs(dataDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ms = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pid) === postmaster || Number(f[1]) === postmaster) ms += ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  }
  return ms;
}

/**
 * The trees to compare: this one, and the one of --before (exported) or those of --impl. An --impl entry
 * may end in `?NAME=VALUE&...`: environment for that entry's instances (one tree under two settings).
 */
function trees(tmp: string): { name: string; root: string; env?: Record<string, string> }[] {
  if (opt.impl)
    return opt.impl.split(',').map((entry) => {
      const [d, query] = entry.split('?') as [string, string | undefined];
      const name = path.basename(path.resolve(d)) + (query ? `?${query}` : '');
      return { name, root: path.resolve(d), ...(query ? { env: Object.fromEntries(new URLSearchParams(query)) } : {}) };
    });
  const list = [{ name: 'this tree', root: thisTree }];
  if (opt.before) {
    const root = path.join(tmp, 'before');
    fs.mkdirSync(root);
    const rev = execFileSync('git', ['rev-parse', '--short', opt.before], { cwd: thisTree, encoding: 'utf8' }).trim();
    execFileSync('sh', ['-c', `git archive ${rev} main test package.json tsconfig*.json | tar -x -C ${root}`], {
      cwd: thisTree,
    });
    fs.symlinkSync(path.join(thisTree, 'node_modules'), path.join(root, 'node_modules'));
    list.unshift({ name: `before (${rev})`, root });
  }
  return list;
}

/** What an instance says of the measured callbacks when it closes (serve-child.ts). */
interface Measured {
  /** Its event loop's busy share. */
  loopBusy: number;
  receiver: { commits: number; deliveries: number };
  /** Where its groups' time went (team-callback-store.ts TeamStoreStats); null from an older tree. */
  store: {
    groups: number;
    rows: number;
    verifyMs: number;
    statementMs: number;
    journalMs: number;
    statementBusyMs: number;
    statementOverlapMs: number;
  } | null;
}
interface Closed {
  stats?: { commits: number; deliveries: number; largestGroup: number };
  measured?: Measured;
}

interface Instance {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Tells the instance the measured callbacks start now; resolves once it noted it. */
  mark(): Promise<void>;
  closed: Promise<Closed>;
}

function startInstance(root: string, o: object, env?: Record<string, string>): Promise<Instance> {
  const flags = process.env.SERVE_BENCH_NODE_FLAGS ? process.env.SERVE_BENCH_NODE_FLAGS.split(' ') : [];
  const child = spawn(
    process.execPath,
    [...flags, '--import', 'tsx', path.join(here, 'serve-child.ts'), root, JSON.stringify(o)],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  let resolveClosed: (v: Closed) => void;
  const closed = new Promise<Closed>((r) => (resolveClosed = r));
  let marked: (() => void) | null = null;
  const mark = () =>
    new Promise<void>((r) => {
      marked = r;
      child.kill('SIGUSR2');
    });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      for (;;) {
        const nl = out.indexOf('\n');
        if (nl < 0) break;
        const m = JSON.parse(out.slice(0, nl)) as {
          url?: string;
          pid?: number;
          closed?: boolean;
          marked?: boolean;
        } & Closed;
        out = out.slice(nl + 1);
        if (m.url) resolve({ child, pid: m.pid!, url: m.url, mark, closed });
        if (m.marked) marked?.();
        if (m.closed)
          resolveClosed({ ...(m.stats ? { stats: m.stats } : {}), ...(m.measured ? { measured: m.measured } : {}) });
      }
    });
    child.once('exit', (code) => {
      resolveClosed({});
      reject(new Error(`a serve instance exited with ${code} before it listened`));
    });
  });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-serve-bench-'));
const server = await startServer();
try {
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  // The test server trades durability for speed; this bench measures durable commits.
  await admin.query('ALTER SYSTEM SET fsync = on');
  await admin.query('ALTER SYSTEM SET synchronous_commit = on');
  await admin.query('ALTER SYSTEM SET full_page_writes = on');
  // How long each WAL flush (a commit's fsync) takes: pg_stat_wal's times (PostgreSQL 14 and later).
  await admin.query('ALTER SYSTEM SET track_wal_io_timing = on');
  await admin.query('SELECT pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 500));
  const settings = (
    await admin.query(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')`,
    )
  ).rows as { name: string; setting: string }[];
  log(`durability: ${settings.map((s) => `${s.name}=${s.setting}`).join(', ')}; ${CORES} cores`);
  if (settings.some((s) => s.setting !== 'on'))
    throw new Error('PostgreSQL is not durable; the figure would mean nothing');

  // Each tree migrates a database of its own with its own migrations, and adds its receiver login.
  const impls = await Promise.all(
    trees(tmp).map(async ({ name, root, env }, i) => {
      const load = async <T>(rel: string) => (await import(pathToFileURL(path.join(root, rel)).href)) as T;
      const dbName = `team_${i}`;
      await admin.query(`CREATE DATABASE ${dbName}`);
      const { openTeamPool } = await load<PoolModule>('main/team/pool.ts');
      const owner = openTeamPool(serverUrl(server, dbName));
      await (await load<MigrateModule>('main/team/migrate.ts')).migrate(owner);
      const password = crypto.randomBytes(18).toString('hex');
      const login = `serve_bench_${i}`;
      await (
        await load<OperatorsModule>('main/operations/operators.ts')
      ).addOperator({ pool: owner }, { login, role: 'receiver', password, displayName: 'serve bench' });
      return { name, root, env, owner, url: serverUrl(server, dbName, login, password) };
    }),
  );
  /** pg_stat_wal's counters (cluster-wide: only the measured run writes meanwhile). */
  const walStats = async () =>
    (
      await admin.query<{ wal_sync: string; wal_sync_time: number; wal_write: string; wal_bytes: string }>(
        'SELECT wal_sync, wal_sync_time, wal_write, wal_bytes FROM pg_stat_wal',
      )
    ).rows[0]!;

  const signingKey = crypto.randomBytes(32).toString('hex');
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });
  const servicePublicKey = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const counts = opt.instances.split(',').map(Number);
  type Result = {
    impl: string;
    instances: number;
    perSecond: number;
    serveUs: number[];
    serveMainUs: number[];
    pgUs: number;
    posterUs: number;
    totalUs: number;
    busy: number;
    load: number;
  };
  const results: Result[] = [];
  const pgData = path.join(server.dir, 'data');
  let batch = 0;
  for (let round = 0; round < Number(opt.rounds); round++) {
    // Alternating order, so neither tree nor instance count always runs first.
    const runs = impls.flatMap((impl) => counts.map((n) => ({ impl, n })));
    for (const { impl, n } of round % 2 ? runs.reverse() : runs) {
      batch += 1;
      const signed = (prefix: string, count: number) =>
        signCallbacks(
          Array.from({ length: count }, (_, i) => ({
            ref: `${prefix}-${batch}-${String(i).padStart(7, '0')}`,
            internal: `INT-${prefix}-${batch}-${i}`,
            currency: 'NGN',
            amountMinor: 100_000 + i,
          })),
          signingKey,
          privateKey,
        );
      const { bodies, headers } = signed('BENCH', CB);
      const warm = signed('WARM', Number(opt.warmup));
      const instances = await Promise.all(
        Array.from({ length: n }, (_, k) =>
          startInstance(
            impl.root,
            {
              databaseUrl: impl.url,
              dataDir: path.join(tmp, `serve-${batch}-${k}`),
              signingKey,
              servicePublicKey,
              ...(opt['verify-threads'] !== undefined ? { verifyThreads: Number(opt['verify-threads']) } : {}),
            },
            impl.env,
          ),
        ),
      );
      // Not measured: the instances' first callbacks, while V8 compiles the hot path (a server runs warm).
      if (warm.bodies.length)
        await postCallbacks(
          instances.map((x) => x.url),
          warm.bodies,
          warm.headers,
          Number(opt.concurrency),
        );
      await Promise.all(instances.map((x) => x.mark()));
      const wal0 = await walStats();
      const load = os.loadavg()[0]!;
      const serve0 = instances.map((x) => [cpuMs(x.pid), cpuMs(x.pid, x.pid)] as const);
      const threads0 = instances.map((x) => threadCpuMs(x.pid));
      const pg0 = serverCpuMs(pgData);
      // This thread's CPU from here; the posting thread's by itself, over its timed posting (cpuMs).
      const bench0 = cpuMs(process.pid, process.pid);
      const posted = await postCallbacks(
        instances.map((x) => x.url),
        bodies,
        headers,
        Number(opt.concurrency),
      );
      const wal1 = await walStats();
      const perCb = (ms: number) => Math.round((ms * 1000) / CB);
      const serveUs = instances.map((x, k) => perCb(cpuMs(x.pid) - serve0[k]![0]));
      const serveMainUs = instances.map((x, k) => perCb(cpuMs(x.pid, x.pid) - serve0[k]![1]));
      // The first instance's threads by name (main, V8's GC and compiler threads, libuv's pool, workers).
      const threads = [...threadCpuMs(instances[0]!.pid)]
        .map(([name, ms]) => [name, perCb(ms - (threads0[0]!.get(name) ?? 0))] as const)
        .filter(([, us]) => us > 0)
        .map(([name, us]) => `${name} ${us}`)
        .join(', ');
      const pgUs = perCb(serverCpuMs(pgData) - pg0);
      // The poster: its posting thread over the timed posting (its requests were made before the clock
      // started), and this thread meanwhile.
      const posterUs = perCb(posted.cpuMs + cpuMs(process.pid, process.pid) - bench0);
      const totalUs = serveUs.reduce((a, b) => a + b, 0) + pgUs + posterUs;
      const perSecond = Math.round((CB / posted.ms) * 1000);
      // Share of the machine's cores these processes kept busy while posting.
      const busy = (totalUs * perSecond) / 1e6 / CORES;
      for (const x of instances) x.child.kill('SIGTERM');
      const closed = await Promise.all(instances.map((x) => x.closed));
      const stored = Number(
        (
          await impl.owner.query(
            `SELECT count(*) AS n, count(DISTINCT event_key) AS k FROM team.events WHERE event_key LIKE $1`,
            [`callback:BENCH-${batch}-%`],
          )
        ).rows[0].n,
      );
      const commits = closed.reduce((a, c) => a + (c.stats?.commits ?? 0), 0);
      const deliveries = closed.reduce((a, c) => a + (c.stats?.deliveries ?? 0), 0);
      results.push({
        impl: impl.name,
        instances: n,
        perSecond,
        serveUs,
        serveMainUs,
        pgUs,
        posterUs,
        totalUs,
        busy,
        load,
      });
      const syncs = Number(wal1.wal_sync) - Number(wal0.wal_sync);
      const walLine =
        `PostgreSQL: ${syncs} WAL flushes (${((syncs / posted.ms) * 1000).toFixed(0)}/s), ` +
        `${((wal1.wal_sync_time - wal0.wal_sync_time) / Math.max(1, syncs)).toFixed(2)} ms each, ` +
        `${((Number(wal1.wal_bytes) - Number(wal0.wal_bytes)) / CB).toFixed(0)} B of WAL a callback`;
      const measuredLine = closed
        .map((c, k) => {
          const m = c.measured;
          if (!m) return `instance ${k + 1}: -`;
          const g = m.receiver.commits || 1;
          const st = m.store;
          const storeLine = st
            ? `; per group: verify ${(st.verifyMs / st.groups).toFixed(2)} ms, statement ${(st.statementMs / st.groups).toFixed(2)} ms, ` +
              `journal ${(st.journalMs / st.groups).toFixed(2)} ms; a statement at PostgreSQL ${((st.statementBusyMs / posted.ms) * 100).toFixed(0)}% ` +
              `of the time, two or more ${((st.statementOverlapMs / posted.ms) * 100).toFixed(0)}%`
            : '';
          return (
            `instance ${k + 1}: event loop busy ${(m.loopBusy * 100).toFixed(0)}%, ${m.receiver.commits} groups of ` +
            `${(m.receiver.deliveries / g).toFixed(1)}${storeLine}`
          );
        })
        .join('; ');
      log(
        `round ${round + 1}, ${impl.name}, ${n} instance${n > 1 ? 's' : ''}: ${CB} callbacks in ${(posted.ms / 1000).toFixed(2)} s = ` +
          `${perSecond}/s; stored ${stored}, failed ${posted.failed} ${JSON.stringify(posted.statuses)}; commits ${commits}, ` +
          `mean group ${(deliveries / Math.max(1, commits)).toFixed(1)}; CPU per callback: serve ${serveUs.join(' + ')} µs ` +
          `(main threads ${serveMainUs.join(' + ')}), PostgreSQL ${pgUs} µs, poster ${posterUs} µs, total ${totalUs} µs ` +
          `= ${(busy * 100).toFixed(0)}% of ${CORES} cores; load ${load.toFixed(2)}; first instance's threads (µs): ${threads}\n` +
          `    ${measuredLine}\n    ${walLine}`,
      );
      if (stored !== CB || posted.failed) throw new Error('not every callback was stored exactly once');
    }
  }
  await Promise.all(impls.map((i) => i.owner.end()));
  await admin.end();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = impls.flatMap((impl) =>
    counts.map((n) => {
      const rs = results.filter((r) => r.impl === impl.name && r.instances === n);
      return {
        impl: impl.name,
        instances: n,
        perSecond: median(rs.map((r) => r.perSecond)),
        rounds: rs.map((r) => r.perSecond),
        serveUs: median(rs.map((r) => r.serveUs.reduce((a, b) => a + b, 0))),
        serveMainUs: median(rs.map((r) => Math.max(...r.serveMainUs))),
        pgUs: median(rs.map((r) => r.pgUs)),
        posterUs: median(rs.map((r) => r.posterUs)),
        totalUs: median(rs.map((r) => r.totalUs)),
        busy: Number(median(rs.map((r) => r.busy)).toFixed(2)),
        load: rs.map((r) => Number(r.load.toFixed(2))),
      };
    }),
  );
  for (const s of summary)
    log(
      `${s.impl}, ${s.instances} instance${s.instances > 1 ? 's' : ''}: median ${s.perSecond}/s (rounds ${s.rounds.join(', ')}); ` +
        `per callback serve ${s.serveUs} µs (busiest main thread ${s.serveMainUs}), PostgreSQL ${s.pgUs}, poster ${s.posterUs}, ` +
        `total ${s.totalUs} µs; load ${s.load.join(', ')}`,
    );
  // Ratios from rounds run side by side: the load moves every absolute figure.
  const ratio = (a: Result[], b: Result[]) => median(a.map((r, i) => r.perSecond / b[i]!.perSecond));
  for (const impl of impls)
    if (counts.length > 1) {
      const one = results.filter((r) => r.impl === impl.name && r.instances === counts[0]);
      for (const n of counts.slice(1)) {
        const many = results.filter((r) => r.impl === impl.name && r.instances === n);
        log(
          `${impl.name}: ${n} instances / ${counts[0]}: ${ratio(many, one).toFixed(2)}x (median of the rounds' ratios)`,
        );
      }
    }
  if (impls.length > 1)
    for (const n of counts) {
      const [before, after] = [impls[0]!, impls[impls.length - 1]!].map((impl) =>
        results.filter((r) => r.impl === impl.name && r.instances === n),
      );
      log(
        `${n} instance${n > 1 ? 's' : ''}: ${impls[impls.length - 1]!.name} / ${impls[0]!.name}: ${ratio(after!, before!).toFixed(2)}x`,
      );
    }
  process.stdout.write(
    JSON.stringify({ callbacks: CB, concurrency: Number(opt.concurrency), cores: CORES, summary }) + '\n',
  );
} finally {
  stopServerSync(server.dir, server.binDir);
  fs.rmSync(tmp, { recursive: true, force: true });
}
