// npm run bench:follow (issue 23): what a desk costs while it follows a busy team, every part a real
// process: a throw-away PostgreSQL, `team init` and `team operators add` (the CLI), `serve` as the
// callback receiver (the CLI, behind a stand-in reverse proxy: --trust-proxy 127.0.0.1), the sandbox as
// the service (its keys sign the callbacks), and N desks, each the built app in the Chromium shell on
// its own data folder and HOME/XDG folders, connected with `connect --profile team` and signed in at
// its lock screen. Callbacks are posted to serve at a steady rate for collections every desk knows
// (their intents are recorded and pulled by every desk first). Measured from outside the desks only:
//   - CPU per applied event (main process and its Chromium, from /proc utime+stime of the process
//     tree), one desk with Collections on screen, then Balances (a light screen), and its CPU in cores;
//   - N desks on Collections (the last one on Take payment): lag p95 per desk (serve's 200 -> the callback's event in the desk's
//     SQLite, polled read-only every 100 ms: late by 50 ms on average, at most one poll) and the
//     callbacks not on each desk --settle seconds after the load;
//   - a desk started on a backlog of --backlog events (half intents, half their callbacks, written while
//     it was stopped): Take payment clicked as soon as it is signed in, timed until its form shows; its
//     main process's memory (VmRSS sampled every 200 ms, and VmHWM) until the backlog is applied.
// Prints a table with the issue's goals beside the figures, then one JSON object.
// Options: --desks N (8) --seconds S (20) --rate R (300 callbacks/s) --backlog N (50000) --settle S (5)
// --phases single,many,backlog (all) --quick (2 desks, 5 s at 50/s, a 5,000-event backlog) --keep
// --profile DIR (one desk's main and window under V8's profiler, follow-profile.ts; run the bench with
// node --experimental-websocket) --idle S (before each load, once the desks are quiet: S seconds more of
// nothing arriving, the desks' main and window CPU in ms per second: what a desk spends doing nothing).
// Runs under scripts/with-keyring.sh (npm run bench:follow does): the desks keep their keys in the
// keychain of that private D-Bus session, each under its own service name.
import crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { loadOrCreateServiceKeys } from '../../sandbox/keys.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordIntent } from '../../main/team/record.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { freePort } from '../e2e/support/app.js';
import { postCallbacksPaced, signCallbacks } from './post-callbacks.js';
import { DeskProfile } from './follow-profile.js';
import { Desk, memoryMiB, ticksToSeconds, treeCpu, type TreeCpu } from './follow-desk.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.join(ROOT, 'bin', 'merchant-desk.js');
const log = (msg: string) => process.stderr.write(`[follow ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { values: opt } = parseArgs({
  options: {
    desks: { type: 'string' },
    seconds: { type: 'string' },
    rate: { type: 'string' },
    backlog: { type: 'string' },
    settle: { type: 'string', default: '5' },
    phases: { type: 'string', default: 'single,many,backlog' },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
    idle: { type: 'string', default: '0' },
  },
  strict: true,
});
const num = (name: string, v: string | undefined, full: number, quick: number, min = 1) => {
  const n = v === undefined ? (opt.quick ? quick : full) : Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return n;
};
const desksN = num('desks', opt.desks, 8, 2);
const seconds = num('seconds', opt.seconds, 20, 5);
const rate = num('rate', opt.rate, 300, 50);
const backlog = num('backlog', opt.backlog, 50_000, 5_000, 2);
const settle = num('settle', opt.settle, 5, 5, 0);
const idleSeconds = num('idle', opt.idle, 0, 0, 0);
const phases = new Set(opt.phases.split(',').map((s) => s.trim()));
for (const p of phases)
  if (!['single', 'many', 'backlog'].includes(p))
    throw new Error(`--phases: unknown phase ${JSON.stringify(p)} (single, many, backlog)`);

if (!fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html')))
  throw new Error('the app is not built; run "npm run build" (npm run bench:follow does)');
if (!process.env.DBUS_SESSION_BUS_ADDRESS)
  throw new Error(
    'no D-Bus session for the keychain: run it through scripts/with-keyring.sh (npm run bench:follow does)',
  );

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const RECEIVER = { login: 'serve_rx', password: 'serve password 1234' };
const SEEDER = { login: 'seeder', password: 'seeder password 1234' };
const deskPassword = (login: string) => `${login} password 1234`;
/** Where the stand-in proxy says callbacks came from: serve limits each source to 200/s (burst 1,000). */
const SERVICE_HOSTS = Array.from({ length: 16 }, (_, i) => `203.0.113.${i + 1}`);

function cli(args: string[], o: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const env = { ...process.env, ...o.env };
    if (!o.env?.PGPASSWORD) delete env.PGPASSWORD;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(o.stdin ?? '');
  });
}
async function cliOk(what: string, args: string[], o: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = await cli(args, o);
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}):\n${r.out}`);
}

/** CPU ticks of a process and all its descendants (serve; PostgreSQL's postmaster and backends). */
function allTicks(pid: number): number {
  const t = treeCpu(pid);
  return t.mainTicks + t.windowTicks;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

interface Team {
  server: PgServerInfo;
  serve: { child: ChildProcess; url: string };
  sb: Sandbox;
  rsaKey: crypto.KeyObject;
  seeder: pg.Pool;
  postmasterPid: number;
}

async function setUp(work: string): Promise<Team> {
  log('starting PostgreSQL and the sandbox');
  const [server, sb] = await Promise.all([startServer(), startSandbox({ stateDir: path.join(work, 'sandbox') })]);
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE team');
  await admin.end();
  const cliDir = path.join(work, 'cli');
  const urlAs = (login: string) => `postgres://${login}@${server.host}:${server.port}/team`;
  log('team init and operators (the CLI)');
  await cliOk(
    'team init',
    ['--data-dir', cliDir, 'team', 'init', '--database', urlAs(server.superuser), '--admin', ADMIN.login],
    { stdin: `${server.password}\n${ADMIN.password}\n` },
  );
  const operators = [
    { ...RECEIVER, role: 'receiver' },
    { ...SEEDER, role: 'support' },
    ...Array.from({ length: desksN }, (_, i) => ({
      login: `desk${i + 1}`,
      password: deskPassword(`desk${i + 1}`),
      role: 'support',
    })),
  ];
  for (const op of operators)
    await cliOk(
      `team operators add ${op.login}`,
      ['--data-dir', cliDir, 'team', 'operators', 'add', '--database', urlAs(ADMIN.login)].concat([
        '--login',
        op.login,
        '--role',
        op.role,
        '--name',
        op.login,
      ]),
      { stdin: `${ADMIN.password}\n`, env: { MERCHANT_DESK_NEW_PASSWORD: op.password } },
    );

  // serve as a service manager runs it: keys in credential files, the password in the environment.
  const creds = path.join(work, 'credentials');
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, 'signing-key'), `${sb.signingKey}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(creds, 'service-public-key.pem'), sb.servicePublicKeyPem, { mode: 0o600 });
  const port = await freePort();
  const serveLog = fs.openSync(path.join(work, 'serve.log'), 'a');
  const child = spawn(
    process.execPath,
    [BIN, '--data-dir', path.join(work, 'serve'), 'serve', '--database', urlAs(RECEIVER.login)].concat([
      '--listen',
      `127.0.0.1:${port}`,
      '--no-poll',
      '--trust-proxy',
      '127.0.0.1',
    ]),
    {
      cwd: ROOT,
      env: { ...process.env, PGPASSWORD: RECEIVER.password, CREDENTIALS_DIRECTORY: creds },
      stdio: ['ignore', serveLog, serveLog],
    },
  );
  fs.closeSync(serveLog);
  const url = `http://127.0.0.1:${port}`;
  for (let t = Date.now(); ; await pause(100)) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}); see ${work}/serve.log`);
    if (Date.now() - t > 60_000) throw new Error(`serve did not answer /healthz within 60 s; see ${work}/serve.log`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
  }
  const postmasterPid = Number(fs.readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    server,
    serve: { child, url: `${url}/callbacks/collections` },
    sb,
    rsaKey: (await loadOrCreateServiceKeys(path.join(work, 'sandbox'))).privateKey,
    seeder: openTeamPool(serverUrl(server, 'team', SEEDER.login, SEEDER.password), { max: 8 }),
    postmasterPid,
  };
}

/** A desk's data folder connected to the team through the CLI, as a user does (keys on standard input). */
async function connectDesk(team: Team, work: string, i: number): Promise<Desk> {
  const login = `desk${i}`;
  const desk = new Desk({
    root: ROOT,
    dir: path.join(work, `desk-${i}`),
    login,
    password: deskPassword(login),
    keychainService: `merchant-desk-bench-follow-${process.pid}-${i}`,
    inspectPort: opt.profile && i === 1 ? await freePort() : undefined,
  });
  const pem = path.join(work, 'service-public-key.pem');
  if (!fs.existsSync(pem)) fs.writeFileSync(pem, team.sb.servicePublicKeyPem);
  await cliOk(
    `connect ${login}`,
    ['--data-dir', desk.dataDir, 'connect', '--profile', 'team', '--base-url', team.sb.baseUrl]
      .concat(['--public-key', team.sb.publicKey, '--service-key', pem, '--secret-key-stdin', '--signing-key-stdin'])
      .concat(['--database', `postgres://${login}@${team.server.host}:${team.server.port}/team`, '--login', login]),
    { stdin: `${team.sb.secretKey}\n${team.sb.signingKey}\n`, env: desk.env() },
  );
  return desk;
}

async function startDesk(desk: Desk, screen: string): Promise<void> {
  await desk.start();
  await desk.signIn();
  await desk.open(screen);
  log(`${desk.login} signed in, ${screen} on screen`);
}

interface Target {
  ref: string;
  internal: string;
  currency: string;
  amountMinor: number;
}

/** `n` intents recorded in the team (as the seeder, a support login), 8 at a time; their callbacks' targets. */
async function seedIntents(team: Team, prefix: string, n: number): Promise<Target[]> {
  const targets: Target[] = Array.from({ length: n }, (_, i) => ({
    ref: `${prefix}${String(i).padStart(6, '0')}`,
    internal: `INT-${prefix}${i}`,
    currency: 'NGN',
    amountMinor: 150_000 + i,
  }));
  let next = 0;
  const now = Date.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < targets.length) {
        const t = targets[next++]!;
        await recordIntent(team.seeder, {
          merchantReference: t.ref,
          createdAt: now,
          amountMinor: t.amountMinor,
          currency: t.currency,
          description: `Phone order ${t.ref}`,
          customerName: 'Amina Hassan',
          customerEmail: null,
          chargeCustomer: false,
          allowFinalStatusChange: true,
          operator: SEEDER.login,
          providerCode: 'CARD_NGN',
          redirectUrl: 'https://merchant-desk.invalid/return',
          cardBrand: 'visa',
          cardLast4: '4242',
        });
      }
    }),
  );
  return targets;
}

/** Waits until every desk holds all `n` collections of `prefix` (the intents pulled). */
async function waitKnown(desks: Desk[], prefix: string, n: number, timeoutMs = 600_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const counts = desks.map((d) => d.watch.collections(prefix));
    if (counts.every((c) => c >= n)) return;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`the desks hold ${counts.join(', ')} of the ${n} seeded collections after ${timeoutMs / 1000} s`);
    await pause(250);
  }
}

interface DeskLoad {
  login: string;
  applied: number;
  missingAtSettle: number;
  missingAtEnd: number;
  lagP50S: number | null;
  lagP95S: number | null;
  lagMaxS: number | null;
  /** CPU seconds per second of the load (main, window, both). */
  cores: { main: number; window: number; total: number };
  /** CPU per applied event, from the load's start until all were applied and the desk was quiet again, or the wait ended. */
  msPerEvent: { main: number; window: number; total: number } | null;
  idleCores: number;
  /** With --idle S: CPU ms per second over S quiet seconds before the load (the same screen, nothing arriving). */
  idleMsPerSecond: { main: number; window: number; seconds: number } | null;
  /** Seconds after the load's end that its cost was counted to: quiet again, or cut at the end of the wait. */
  costCountedTo: { secondsAfterLoad: number; until: 'quiet' | 'the end of the wait' };
}

/**
 * `targets.length` signed callbacks posted to serve at `rate`/s while every desk is watched; returns per
 * desk what it applied, its lag, what was missing `settle` s after the load, and its CPU.
 */
async function load(team: Team, desks: Desk[], targets: Target[], label: string) {
  const idle = await waitQuiet(desks, label);
  const idleMs = await idleBaseline(desks, label);
  for (const d of desks) d.watch.poll();
  const signed = signCallbacks(targets, team.sb.signingKey, team.rsaKey);
  const profile =
    opt.profile && desks.length === 1 && desks[0]!.o.inspectPort
      ? await DeskProfile.start(desks[0]!.o.inspectPort, desks[0]!.page!)
      : null;
  let profileStopped = false;
  const cpu0 = desks.map((d) => treeCpu(d.pid));
  const serve0 = allTicks(team.serve.child.pid!);
  const pg0 = allTicks(team.postmasterPid);
  const poller = setInterval(() => {
    const now = Date.now();
    for (const d of desks) d.watch.poll(now);
  }, 100);
  const loadAt = Date.now();
  log(`${label}: ${targets.length} callbacks at ${rate}/s to serve, ${desks.length} desk(s) following`);
  const posted = await postCallbacksPaced(team.serve.url, signed, {
    rate,
    concurrency: 16,
    forwardedFor: SERVICE_HOSTS,
  });
  const loadEnd = Date.now();
  const loadSeconds = (loadEnd - loadAt) / 1000;
  const cpuLoadEnd = desks.map((d) => treeCpu(d.pid));
  const serveUs = (ticksToSeconds(allTicks(team.serve.child.pid!) - serve0) * 1e6) / targets.length;
  const pgUs = (ticksToSeconds(allTicks(team.postmasterPid) - pg0) * 1e6) / targets.length;
  const accepted = targets.map((t, i) => ({ ref: t.ref, at: posted.status[i] === 200 ? posted.acceptedAt[i]! : NaN }));
  const ok = accepted.filter((a) => !Number.isNaN(a.at));
  const statuses: Record<string, number> = {};
  for (const s of posted.status) statuses[s] = (statuses[s] ?? 0) + 1;
  log(
    `${label}: posted in ${loadSeconds.toFixed(1)} s: ${JSON.stringify(statuses)}; serve ${Math.round(serveUs)} µs, PostgreSQL ${Math.round(pgUs)} µs of CPU per callback`,
  );
  const missing = (d: Desk) => ok.filter((a) => !d.watch.seen.has(a.ref)).length;
  // A desk's cost of the load ends once it holds every accepted callback AND it is quiet again (under 0.1
  // core over a second: the window may still be re-reading what it shows), or at the end of the wait.
  const cpuDone: (TreeCpu | null)[] = desks.map(() => null);
  const doneAt: (number | null)[] = desks.map(() => null);
  const last: ({ t: number; cpu: TreeCpu } | null)[] = desks.map(() => null);
  const quietAt: (number | null)[] = desks.map(() => null);
  const settleAt = loadEnd + settle * 1000;
  const endAt = loadEnd + Math.max(settle, 60) * 1000;
  let missingAtSettle: number[] | null = null;
  for (;;) {
    const now = Date.now();
    desks.forEach((d, i) => {
      if (doneAt[i] === null && missing(d) === 0) {
        doneAt[i] = now;
        last[i] = { t: now, cpu: treeCpu(d.pid) };
      }
      const l = last[i];
      if (l && cpuDone[i] === null && now - l.t >= 1000) {
        const c = treeCpu(d.pid);
        const cores =
          ticksToSeconds(c.mainTicks + c.windowTicks - l.cpu.mainTicks - l.cpu.windowTicks) / ((now - l.t) / 1000);
        if (cores < 0.1) {
          cpuDone[i] = l.cpu;
          quietAt[i] = l.t;
        } else last[i] = { t: now, cpu: c };
      }
    });
    // The profiler's own CPU would keep the desk from being quiet: stopped a second after it holds every callback.
    if (profile && !profileStopped && (doneAt[0] ?? Infinity) <= now - 1000) {
      profileStopped = true;
      await profile.stop(opt.profile!, label);
    }
    if (missingAtSettle === null && now >= settleAt) missingAtSettle = desks.map(missing);
    if ((missingAtSettle && cpuDone.every((c) => c !== null)) || now >= endAt) break;
    await pause(100);
  }
  clearInterval(poller);
  if (profile && !profileStopped) await profile.stop(opt.profile!, label);
  missingAtSettle ??= desks.map(missing);
  const perDesk: DeskLoad[] = desks.map((d, i) => {
    const lags = ok.filter((a) => d.watch.seen.has(a.ref)).map((a) => (d.watch.seen.get(a.ref)! - a.at) / 1000);
    lags.sort((x, y) => x - y);
    const notThere = ok.length - lags.length;
    // A callback not there at the end counts as later than any that arrived.
    const withMissing = [...lags, ...Array<number>(notThere).fill(Infinity)];
    const pct = (p: number) => (withMissing.length ? percentile(withMissing, p) : null);
    const end = cpuDone[i] ?? treeCpu(d.pid);
    const countedTo = quietAt[i] ?? Date.now();
    const c0 = cpu0[i]!;
    const cl = cpuLoadEnd[i]!;
    const applied = ok.length - notThere;
    const ms = (ticks: number) => r3((ticksToSeconds(ticks) * 1000) / applied);
    return {
      login: d.login,
      applied,
      missingAtSettle: missingAtSettle![i]!,
      missingAtEnd: notThere,
      lagP50S: pct(50) === null ? null : r2(pct(50)!),
      lagP95S: pct(95) === null ? null : r2(pct(95)!),
      lagMaxS: pct(100) === null ? null : r2(pct(100)!),
      cores: {
        main: r2(ticksToSeconds(cl.mainTicks - c0.mainTicks) / loadSeconds),
        window: r2(ticksToSeconds(cl.windowTicks - c0.windowTicks) / loadSeconds),
        total: r2(ticksToSeconds(cl.mainTicks + cl.windowTicks - c0.mainTicks - c0.windowTicks) / loadSeconds),
      },
      msPerEvent: applied
        ? {
            main: ms(end.mainTicks - c0.mainTicks),
            window: ms(end.windowTicks - c0.windowTicks),
            total: ms(end.mainTicks + end.windowTicks - c0.mainTicks - c0.windowTicks),
          }
        : null,
      idleCores: r2(idle[i]!),
      idleMsPerSecond: idleMs[i] ?? null,
      costCountedTo: {
        secondsAfterLoad: r1((countedTo - loadEnd) / 1000),
        until: quietAt[i] === null ? 'the end of the wait' : 'quiet',
      },
    };
  });
  for (const p of perDesk)
    log(
      `${label}: ${p.login}: lag p95 ${lagText(p.lagP95S)}, missing at +${settle} s ${p.missingAtSettle}, ` +
        `${p.cores.total} cores (${p.cores.main} main, ${p.cores.window} window), ` +
        `${p.msPerEvent?.total ?? '-'} ms/event (counted to ${p.costCountedTo.secondsAfterLoad} s after the load: ${p.costCountedTo.until}), idle ${p.idleCores} cores`,
    );
  return {
    callbacks: targets.length,
    accepted: ok.length,
    statuses,
    loadSeconds: r1(loadSeconds),
    serveMicrosPerCallback: Math.round(serveUs),
    postgresMicrosPerCallback: Math.round(pgUs),
    desks: perDesk,
  };
}

/**
 * Waits until every desk is idle (under 0.1 core over 2 s, main and window), at most 120 s: what the
 * desks did before (catching up, the intents just pulled) must not be counted as the load's. Returns
 * each desk's cores over the last 2 s (its idle baseline).
 */
async function waitQuiet(desks: Desk[], label: string): Promise<number[]> {
  const t0 = Date.now();
  for (;;) {
    const before = desks.map((d) => treeCpu(d.pid));
    await pause(2000);
    const cores = desks.map((d, i) => {
      const c = treeCpu(d.pid);
      return ticksToSeconds(c.mainTicks + c.windowTicks - before[i]!.mainTicks - before[i]!.windowTicks) / 2;
    });
    if (cores.every((c) => c < 0.1)) return cores;
    if (Date.now() - t0 > 120_000) {
      log(`${label}: the desks are still busy after 120 s (${cores.map(r2).join(', ')} cores); measuring anyway`);
      return cores;
    }
  }
}

/** --idle S: each desk's main and window CPU in ms per second over S seconds with nothing arriving. */
async function idleBaseline(desks: Desk[], label: string) {
  if (idleSeconds === 0) return desks.map(() => null);
  const before = desks.map((d) => treeCpu(d.pid));
  const t = performance.now();
  await pause(idleSeconds * 1000);
  const s = (performance.now() - t) / 1000;
  return desks.map((d, i) => {
    const c = treeCpu(d.pid);
    const r = {
      main: r1((ticksToSeconds(c.mainTicks - before[i]!.mainTicks) * 1000) / s),
      window: r1((ticksToSeconds(c.windowTicks - before[i]!.windowTicks) * 1000) / s),
      seconds: r1(s),
    };
    log(`${label}: ${d.login} idle for ${r.seconds} s: ${r.main} ms/s main, ${r.window} ms/s window`);
    return r;
  });
}

/**
 * Seeds `n` intents under a fresh prefix while the desks show Balances (a Collections screen re-reading
 * its list for each would take minutes on today's code: set-up, not the measure), waits for every desk
 * to hold them, opens `screen` and runs the load.
 */
async function round(team: Team, desks: Desk[], prefix: string, label: string, screen: (i: number) => string) {
  const n = rate * seconds;
  for (const d of desks) await d.open('Balances');
  log(`${label}: recording ${n} intents`);
  const targets = await seedIntents(team, prefix, n);
  await waitKnown(desks, prefix, n);
  for (const [i, d] of desks.entries()) await d.open(screen(i));
  return load(team, desks, targets, label);
}

/**
 * The backlog: with every desk stopped, `backlog` events are written (half intents, half callbacks for
 * them through serve), then desk 1 starts; Take payment is clicked as soon as it is signed in.
 */
async function backlogPhase(team: Team, desk: Desk) {
  if (desk.watch.collections('FB-') === 0) {
    // A desk that was there before the backlog (not a new desk's first start): up to date, then stopped.
    // It holds a few of the team's events first: a desk that has pulled nothing (its database made by
    // `connect`, or empty) starts with the bulk copy (a new desk's start, sync/start.ts), which holds its
    // main thread for seconds, not the sliced catch-up this phase measures.
    await startDesk(desk, 'Balances');
    await seedIntents(team, 'FB-A-', 10);
    await waitKnown([desk], 'FB-A-', 10);
    await desk.stop();
  }
  const intents = Math.floor(backlog / 2);
  const prefix = 'FB-B-';
  log(`backlog: recording ${intents} intents and posting their callbacks while the desk is stopped`);
  const targets = await seedIntents(team, prefix, intents);
  const signed = signCallbacks(targets, team.sb.signingKey, team.rsaKey);
  const posted = await postCallbacksPaced(team.serve.url, signed, {
    rate: 2500,
    concurrency: 16,
    forwardedFor: SERVICE_HOSTS,
  });
  const stored = posted.status.filter((s) => s === 200).length;
  if (stored !== intents) throw new Error(`serve stored ${stored} of the ${intents} backlog callbacks`);
  const behind = Number(
    (
      await team.seeder.query<{ n: string }>(
        `SELECT count(*) AS n FROM team.events WHERE merchant_reference >= $1 AND merchant_reference < $2`,
        [prefix, prefix + '\uffff'],
      )
    ).rows[0]!.n,
  );
  log(`backlog: ${behind} events in team.events for the stopped desk; starting it`);
  const samples: number[] = [];
  const t0 = performance.now();
  await desk.start();
  let drainedAt: number | null = null;
  let intentsApplied = 0;
  const applied = () => targets.filter((t) => desk.watch.seen.has(t.ref)).length;
  /** Events of the backlog the desk holds: its intents' rows and their callbacks. */
  const eventsApplied = () => intentsApplied + applied();
  const sampler = setInterval(() => {
    const m = memoryMiB(desk.pid);
    if (m) samples.push(m.rss);
    intentsApplied = desk.watch.collections(prefix);
    if (drainedAt === null && applied() === intents) drainedAt = performance.now();
  }, 200);
  try {
    const startedS = (performance.now() - t0) / 1000;
    const s0 = performance.now();
    await desk.signIn();
    const signInS = (performance.now() - s0) / 1000;
    const rssAtSignIn = memoryMiB(desk.pid)?.rss ?? NaN;
    log(`backlog: started in ${startedS.toFixed(1)} s, signed in after ${signInS.toFixed(1)} s more`);
    // Take payment is opened twice while the desk drains: once a tenth of the backlog is applied (the
    // drain is under way) and again at half (from Balances).
    const opens: { atFraction: number; eventsAppliedAtClick: number; draining: boolean; seconds: number | null }[] = [];
    for (const fraction of [0.1, 0.5]) {
      const w0 = performance.now();
      while (drainedAt === null && eventsApplied() < fraction * behind && performance.now() - w0 < 300_000)
        await pause(100);
      if (opens.length) await desk.open('Balances').catch(() => {});
      const atClick = eventsApplied();
      const draining = drainedAt === null;
      const c0 = performance.now();
      let seconds: number | null = null;
      try {
        await desk.open('Take payment');
        await desk.page!.getByRole('form', { name: 'Take payment' }).waitFor({ state: 'visible', timeout: 120_000 });
        seconds = (performance.now() - c0) / 1000;
      } catch (e) {
        log(`backlog: Take payment did not open: ${(e as Error).message.split('\n')[0]}`);
      }
      opens.push({
        atFraction: fraction,
        eventsAppliedAtClick: atClick,
        draining,
        seconds: seconds === null ? null : r2(seconds),
      });
      log(
        `backlog: Take payment opened in ${seconds?.toFixed(2) ?? '> 120'} s, clicked with ${atClick} of ${behind} events in its SQLite${draining ? '' : ' (all there: what the window does with them is left)'}`,
      );
    }
    const d0 = performance.now();
    const drainLimitMs = Math.max(300_000, backlog * 10);
    while (drainedAt === null && performance.now() - d0 < drainLimitMs) await pause(250);
    const drained = applied();
    const drainS = ((drainedAt ?? performance.now()) - t0) / 1000;
    const mem = memoryMiB(desk.pid);
    log(
      `backlog: ${drained} of ${intents} callbacks applied ${drainS.toFixed(1)} s after the start (seen every 200 ms); RSS peak ${Math.round(Math.max(...samples))} MiB`,
    );
    return {
      events: behind,
      startSeconds: r1(startedS),
      signInSeconds: r1(signInS),
      takePayment: opens,
      callbacksApplied: drained,
      callbacks: intents,
      secondsFromStartToApplied: drained === intents ? r1(drainS) : null,
      rssMiB: {
        atSignIn: Math.round(rssAtSignIn),
        peakSampled: Math.round(Math.max(...samples)),
        peakVmHWM: mem ? Math.round(mem.peak) : null,
        atEnd: mem ? Math.round(mem.rss) : null,
      },
    };
  } finally {
    clearInterval(sampler);
  }
}

const fmt = (x: number | null | undefined, unit = '') => (x === null || x === undefined ? 'n/a' : `${x}${unit}`);
const lagText = (x: number | null) =>
  x === null ? 'n/a' : x === Infinity ? 'over 60 s (not all there 60 s after the load)' : `${x} s`;

function table(r: Results): string {
  const rows: [string, string, string][] = [];
  const one = (x: LoadResult | undefined) => x?.desks[0];
  const c = one(r.single?.collections);
  const b = one(r.single?.balances);
  rows.push([
    'desk CPU per applied event (main + window), Collections on screen',
    fmt(c?.msPerEvent?.total, ' ms') +
      (c?.msPerEvent ? ` (${c.msPerEvent.main} main, ${c.msPerEvent.window} window)` : '') +
      (c && c.costCountedTo.until !== 'quiet'
        ? `, cut ${c.costCountedTo.secondsAfterLoad} s after the load: still busy`
        : ''),
    '≤ 0.3 ms',
  ]);
  rows.push([
    'the same, a light screen (Balances)',
    fmt(b?.msPerEvent?.total, ' ms') +
      (b?.msPerEvent ? ` (${b.msPerEvent.main} main, ${b.msPerEvent.window} window)` : '') +
      (b && b.costCountedTo.until !== 'quiet'
        ? `, cut ${b.costCountedTo.secondsAfterLoad} s after the load: still busy`
        : ''),
    '≤ 0.2 ms',
  ]);
  rows.push([
    `one desk following ${rate} callbacks/s for ${seconds} s: CPU (Balances; Collections)`,
    b
      ? `${b.cores.total} cores (${b.cores.main} main, ${b.cores.window} window); ${c?.cores.total ?? 'n/a'} cores`
      : 'n/a',
    '≤ 0.15 core',
  ]);
  const m = r.many?.desks ?? [];
  const worst = m.length ? m.reduce((a, d) => ((d.lagP95S ?? Infinity) > (a.lagP95S ?? Infinity) ? d : a)) : undefined;
  rows.push([
    `${m.length || desksN} desks + serve + PostgreSQL on this ${os.cpus().length}-core machine, ${rate}/s for ${seconds} s, Collections on screen (the last desk: Take payment)`,
    m.length
      ? `p95 lag ${m.map((d) => lagText(d.lagP95S)).join(', ')} (worst ${lagText(worst!.lagP95S)}); missing at +${settle} s: ${m.map((d) => d.missingAtSettle).join(', ')}`
      : 'n/a',
    `p95 ≤ 0.5 s on every desk, 0 missing at +5 s`,
  ]);
  rows.push([
    `Take payment opens while a desk drains a ${backlog.toLocaleString('en')}-event backlog`,
    r.backlog
      ? r.backlog.takePayment
          .map(
            (o) =>
              `${o.seconds === null ? 'did not open in 120 s' : `${o.seconds} s`} (clicked with ${o.eventsAppliedAtClick.toLocaleString('en')} of ${r.backlog!.events.toLocaleString('en')} in its SQLite)`,
          )
          .join('; ')
      : 'n/a',
    '≤ 1 s',
  ]);
  rows.push([
    `desk main-process memory while draining ${backlog.toLocaleString('en')} events`,
    r.backlog
      ? `peak RSS ${r.backlog.rssMiB.peakSampled} MiB (VmHWM ${fmt(r.backlog.rssMiB.peakVmHWM)} MiB; ${r.backlog.rssMiB.atSignIn} MiB at sign-in)`
      : 'n/a',
    '≤ 200 MB',
  ]);
  return ['| measure | this run | goal |', '|---|---|---|', ...rows.map((x) => `| ${x.join(' | ')} |`)].join('\n');
}

type LoadResult = Awaited<ReturnType<typeof load>>;
interface Results {
  single?: { collections: LoadResult; balances: LoadResult };
  many?: LoadResult;
  backlog?: Awaited<ReturnType<typeof backlogPhase>>;
  /** SIGTERM to exit, per desk and when (null: killed after 20 s). */
  stops?: { login: string; when: string; seconds: number | null; code: number | null }[];
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-follow-'));
fs.chmodSync(work, 0o755);
const loadAtStart = os.loadavg();
const t0 = performance.now();
let team: Team | undefined;
const desks: Desk[] = [];
const results: Results = {};
try {
  team = await setUp(work);
  log(`connecting ${desksN} desks (the CLI)`);
  for (let i = 1; i <= desksN; i++) desks.push(await connectDesk(team, work, i));
  const [first] = desks;
  results.stops = [];
  const stop = async (d: Desk, when: string) => {
    const s = await d.stop();
    results.stops!.push({ login: d.login, when, seconds: s.seconds === null ? null : r2(s.seconds), code: s.code });
    log(
      `${d.login} stopped (SIGTERM) ${when}: ${s.seconds === null ? 'killed after 20 s' : `${s.seconds.toFixed(1)} s`}`,
    );
  };
  if (phases.has('single')) {
    // The light screen first: on Collections a desk can be busy for minutes after the load (what it shows
    // is re-read per notice), which would be counted in the next round.
    await startDesk(first!, 'Balances');
    const balances = await round(team, [first!], 'FB-SB-', 'one desk, Balances', () => 'Balances');
    const collections = await round(team, [first!], 'FB-SC-', 'one desk, Collections', () => 'Collections');
    results.single = { collections, balances };
    // Restarted for the next phase, for the same reason (its stop timed too: it may still be busy).
    if (phases.has('many')) await stop(first!, 'after one desk on Collections');
  }
  if (phases.has('many')) {
    for (const d of desks) if (!d.child) await startDesk(d, 'Balances');
    // The last desk shows Take payment (a person about to charge while the team is busy), the others Collections.
    const screen = (i: number) => (i === desks.length - 1 && desks.length > 1 ? 'Take payment' : 'Collections');
    results.many = await round(
      team,
      desks,
      'FB-M-',
      `${desks.length} desks, Collections (the last on Take payment)`,
      screen,
    );
  }
  for (const d of desks) if (d.child) await stop(d, 'after the last load');
  if (phases.has('backlog')) {
    results.backlog = await backlogPhase(team, first!);
    await stop(first!, 'after the backlog');
  }
  const out = {
    bench: 'follow',
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: { atStart: loadAtStart.map(r2), atEnd: os.loadavg().map(r2) },
    settings: { desks: desksN, seconds, rate, backlog, settle, phases: [...phases] },
    wallSeconds: Math.round((performance.now() - t0) / 1000),
    ...results,
  };
  process.stdout.write(
    table(results) +
      '\n\n' +
      JSON.stringify(out, (_k, v: unknown) => (v === Infinity ? 'not all there 60 s after the load' : v), 2) +
      '\n',
  );
} finally {
  for (const d of desks) {
    d.watch.close();
    if (d.child) await d.stop(5_000).catch(() => {});
  }
  if (team) {
    if (team.serve.child.exitCode === null) {
      team.serve.child.kill('SIGTERM');
      await new Promise((r) => team!.serve.child.once('exit', r));
    }
    await team.seeder.end().catch(() => {});
    await team.sb.close().catch(() => {});
    stopServerSync(team.server.dir, team.server.binDir);
  }
  if (!opt.keep) fs.rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
