// Callback ingestion through `serve` into PostgreSQL: signed callbacks posted over loopback HTTP (the
// bench's poster, post-callbacks.ts) to serve's receiver, each verified (HMAC) and stored in team.events
// with a durable commit (fsync and synchronous_commit on, PostgreSQL's defaults) before its 200.
// Goal: at least 3,000/s.
//   npx tsx test/bench/serve.ts [--callbacks N] [--concurrency N] [--rounds N]
// PostgreSQL runs as the `postgres` user when this runs as root: TMPDIR must be a folder it can reach.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { signCallbacks } from './post-callbacks.js';
import { postCallbacks } from './post-callbacks.js';
import { serverUrl, startServer, stopServerSync } from '../support/postgres-server.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { startServe } from '../../main/serve/server.js';
import { DEFAULT_RATE_LIMIT } from '../../main/callbacks/rate-limit.js';
import pino from 'pino';
import { createLogger } from '../../main/log/logger.js';

const { values: opt } = parseArgs({
  options: {
    callbacks: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
  },
  strict: true,
});
const CB = Number(opt.callbacks);

/** CPU time (ms) of this process's main thread: serve's own cost, whatever else loads the machine. */
function mainThreadCpuMs(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
}

/** CPU time (ms) of the PostgreSQL server: the postmaster and its children (backends, WAL writer...). */
function serverCpuMs(dataDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pid) === postmaster || Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / 100;
}
const log = (msg: string) => process.stderr.write(`[serve-bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const server = await startServer();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-serve-bench-'));
try {
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  // The test server trades durability for speed; this bench measures durable commits.
  await admin.query('ALTER SYSTEM SET fsync = on');
  await admin.query('ALTER SYSTEM SET synchronous_commit = on');
  await admin.query('ALTER SYSTEM SET full_page_writes = on');
  await admin.query('SELECT pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 500));
  const settings = (
    await admin.query(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')`,
    )
  ).rows as { name: string; setting: string }[];
  log(`durability: ${settings.map((s) => `${s.name}=${s.setting}`).join(', ')}`);
  if (settings.some((s) => s.setting !== 'on'))
    throw new Error('PostgreSQL is not durable; the figure would mean nothing');
  await admin.query('CREATE DATABASE team');
  await admin.end();

  const owner = openTeamPool(serverUrl(server, 'team'));
  await migrate(owner);
  const password = crypto.randomBytes(18).toString('hex');
  await addOperator({ pool: owner }, { login: 'serve_bench', role: 'receiver', password, displayName: 'serve bench' });

  const signingKey = crypto.randomBytes(32).toString('hex');
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const results: number[] = [];
  const cpu: { serveUs: number; pgUs: number }[] = [];
  for (let round = 0; round < Number(opt.rounds); round++) {
    const targets = Array.from({ length: CB }, (_, i) => ({
      ref: `BENCH-${round}-${String(i).padStart(7, '0')}`,
      internal: `INT-${round}-${i}`,
      currency: 'NGN',
      amountMinor: 100_000 + i,
    }));
    const { bodies, headers } = signCallbacks(targets, signingKey, privateKey);
    const serve = await startServe({
      databaseUrl: serverUrl(server, 'team', 'serve_bench', password),
      host: '127.0.0.1',
      port: 0,
      verification: { signingKey, servicePublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      poll: null,
      dataDir: path.join(dir, `serve-${round}`),
      // The poster is a local process with no proxy in front: the desktop's loopback allowance.
      rateLimit: {
        loopbackPerSecond: DEFAULT_RATE_LIMIT.loopbackPerSecond,
        loopbackBurst: DEFAULT_RATE_LIMIT.loopbackBurst,
      },
      // serve logs each stored callback at info, redacted: counted here too, written to /dev/null.
      logger: createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: true }) }),
    });
    const load = os.loadavg()[0]!;
    const cpu0 = mainThreadCpuMs();
    const pg0 = serverCpuMs(path.join(server.dir, 'data'));
    const posted = await postCallbacks(serve.url, bodies, headers, Number(opt.concurrency));
    const serveUs = Math.round(((mainThreadCpuMs() - cpu0) * 1000) / CB);
    const pgUs = Math.round(((serverCpuMs(path.join(server.dir, 'data')) - pg0) * 1000) / CB);
    cpu.push({ serveUs, pgUs });
    const stats = serve.receiver.stats();
    await serve.close();
    const stored = Number(
      (
        await owner.query(`SELECT count(*) AS n FROM team.events WHERE event_key LIKE $1`, [
          `callback:BENCH-${round}-%`,
        ])
      ).rows[0].n,
    );
    const perSecond = Math.round((CB / posted.ms) * 1000);
    results.push(perSecond);
    log(
      `round ${round + 1}: ${CB} callbacks in ${(posted.ms / 1000).toFixed(2)} s = ${perSecond}/s; stored ${stored}, ` +
        `failed ${posted.failed} ${JSON.stringify(posted.statuses)}; commits ${stats.commits}, mean group ` +
        `${(stats.deliveries / Math.max(1, stats.commits)).toFixed(1)}, largest ${stats.largestGroup}; CPU per callback: ` +
        `serve ${serveUs} µs, PostgreSQL ${pgUs} µs; load ${load.toFixed(2)}`,
    );
    if (stored !== CB || posted.failed) throw new Error('not every callback was stored exactly once');
  }
  await owner.end();
  results.sort((a, b) => a - b);
  const median = results[Math.floor(results.length / 2)]!;
  log(`serve ingestion: median ${median}/s over ${results.length} rounds (goal >= 3000/s)`);
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const serveUs = mid(cpu.map((c) => c.serveUs));
  const pgUs = mid(cpu.map((c) => c.pgUs));
  log(`CPU per callback (median): serve main thread ${serveUs} µs, PostgreSQL ${pgUs} µs`);
  process.stdout.write(
    JSON.stringify({
      serveIngestionPerSecond: median,
      rounds: results,
      callbacks: CB,
      serveUs,
      pgUs,
      cpus: os.cpus().length,
    }) + '\n',
  );
} finally {
  stopServerSync(server.dir, server.binDir);
  fs.rmSync(dir, { recursive: true, force: true });
}
