// A desk's main process alone while it follows a busy team: what its sync (the wake, the pull, the
// checks, the apply, the notices) costs per event, without a window, serve or a browser, so two trees
// can be compared quickly (bench:follow measures the whole desk, window included). Starts a throw-away
// PostgreSQL, records intents, lets a desk (its own process, startTeamSync with LISTEN, as a desk runs it)
// catch up, then writes signed callbacks one commit each at --rate per second for --seconds, as serve
// does, and reports the desk's CPU per applied event and the lag from each commit to the desk's seq.
//   npx tsx test/bench/follow-main.ts [--rate 300] [--seconds 10] [--beat ms] [--profile out.cpuprofile]
// Prints ONE JSON object.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { systemClock } from '../../main/clock.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { migrate } from '../../main/team/migrate.js';
import { openTeamPool } from '../../main/team/pool.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { startTeamSync } from '../../main/team/sync/pull.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { composeLedger } from '../../main/app/ledger.js';
import type { SignatureKeys } from '../../main/service/verify-callback.js';
import { startServer, stopServerSync } from '../support/postgres-server.js';
import { BENCH_SIGNING_KEY, callbackPayload, signedEvidence } from './generate.js';
import { createDb } from './team-history.js';

const keys: SignatureKeys = { signingKey: BENCH_SIGNING_KEY, servicePublicKey: null };
const quiet = { info() {}, warn() {} };
const log = (msg: string) => process.stderr.write(`[follow-main ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const { values: opt } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '10' },
    profile: { type: 'string' },
    // The sync's beat (gatherMs); default the sync's own.
    beat: { type: 'string' },
    child: { type: 'string' },
  },
  strict: true,
});

function intent(ref: string, at: number): NewTeamEvent {
  return {
    eventKey: `intent:${ref}`,
    merchantReference: ref,
    source: 'intent',
    kind: 'intent',
    status: 'INTENT',
    amountMinor: 150_000,
    currency: 'UGX',
    signature: 'not_applicable',
    payload: JSON.stringify({
      description: 'Phone order',
      createdAt: at,
      customerName: 'Amina Hassan',
      customerEmail: null,
      chargeCustomer: false,
      allowFinalStatusChange: true,
      operator: 'op1',
      providerCode: 'CARD_UGX',
      redirectUrl: 'https://merchant-desk.invalid/return',
      cardBrand: 'visa',
      cardLast4: '4242',
    }),
    occurredAt: at,
  };
}

function callback(ref: string, i: number, at: number): NewTeamEvent {
  const internal = `INT-${ref}`;
  return {
    eventKey: `callback:${ref}:COMPLETED`,
    merchantReference: ref,
    internalReference: internal,
    source: 'callback',
    kind: 'outcome',
    status: 'COMPLETED',
    amountMinor: 150_000,
    currency: 'UGX',
    signature: 'verified',
    payload: callbackPayload(ref, internal, 'COMPLETED', 'UGX', 150_000, i),
    statusMessage: 'Approved',
    evidence: signedEvidence('callback', ref, internal, 'COMPLETED', at),
    occurredAt: at,
  };
}

/** The desk, in its own process: follows until it holds the seq the parent names, then reports its CPU. */
async function child(file: string): Promise<void> {
  const { ledger } = composeLedger(); // as composeCore does
  const pool = openTeamPool(process.env.MD_FOLLOW_TEAM_URL!, { onIdleError: () => undefined });
  const db = openDatabase(file);
  const sync = startTeamSync({
    pool,
    db,
    ledger,
    clock: systemClock,
    logger: quiet,
    evidenceKeys: () => keys,
    ...(opt.beat ? { gatherMs: Number(opt.beat) } : {}),
  });
  await sync.pullNow();
  const from = lastSeq(db, 'events');
  const session = opt.profile ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  process.stdout.write('ready\n');
  // Told by the parent when the load starts; the CPU is counted from here.
  await new Promise((r) => process.stdin.once('data', r));
  const cpu0 = process.cpuUsage();
  const seen: [number, number][] = [];
  // The parent writes the newest seq to this file once its load is written.
  const untilFile = `${file}.until`;
  let until = Infinity;
  for (;;) {
    if (until === Infinity && fs.existsSync(untilFile)) until = Number(fs.readFileSync(untilFile, 'utf8'));
    const s = lastSeq(db, 'events');
    if (!seen.length || seen[seen.length - 1]![0] !== s) seen.push([s, Date.now()]);
    if (s >= until) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = process.cpuUsage(cpu0);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(opt.profile!, JSON.stringify(profile));
  }
  process.stdout.write(JSON.stringify({ applied: until - from, cpuMs: (cpu.user + cpu.system) / 1000, seen }) + '\n');
  await sync.close();
  await pool.end();
  db.close();
}

async function main(): Promise<void> {
  const rate = Number(opt.rate);
  const seconds = Number(opt.seconds);
  const n = rate * seconds;
  log('starting PostgreSQL');
  const server = await startServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-follow-main-'));
  try {
    const url = await createDb(server, 'bench_follow_main');
    const owner = openTeamPool(url, { max: 16 });
    await migrate(owner);
    const t0 = Date.UTC(2026, 10, 1);
    const refs = Array.from({ length: n }, (_, i) => `MD-F-${i}`);
    for (let i = 0; i < n; i += 1000)
      await appendEvents(
        owner,
        refs.slice(i, i + 1000).map((r, k) => intent(r, t0 + i + k)),
      );
    log(`${n} intents recorded; the desk catches up`);
    const file = path.join(dir, 'desk.sqlite');
    openDatabase(file).close();
    const me = fileURLToPath(import.meta.url);
    const args = ['--import', 'tsx', me, '--child', file, '--rate', String(rate), '--seconds', String(seconds)];
    if (opt.beat) args.push('--beat', opt.beat);
    const p = spawn(process.execPath, [...args, ...(opt.profile ? ['--profile', opt.profile] : [])], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, MD_FOLLOW_TEAM_URL: url },
    });
    const exited = new Promise((r) => p.on('exit', r));
    let out = '';
    p.stdout.on('data', (d) => (out += String(d)));
    while (!out.includes('ready\n')) await new Promise((r) => setTimeout(r, 50));
    const load0 = os.loadavg()[0]!;
    log(`${n} callbacks at ${rate}/s`);
    p.stdin.write('go\n');
    // One commit per callback, as serve stores them, 16 at a time at most, paced to the rate.
    const committedAt = new Map<number, number>();
    const start = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (;;) {
          const i = next++;
          if (i >= n) return;
          const due = start + (i * 1000) / rate;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
          const seq = (await appendEvents(owner, [callback(refs[i]!, i, t0 + i)])).stored[0]!.seq;
          committedAt.set(seq, Date.now());
        }
      }),
    );
    const newest = Number((await owner.query('SELECT max(seq) AS m FROM team.events')).rows[0].m);
    fs.writeFileSync(`${file}.until`, String(newest));
    // Its figures are out once it reaches the newest seq; it closes after.
    while (!out.slice(out.indexOf('ready\n') + 6).includes('\n')) await new Promise((r) => setTimeout(r, 50));
    p.kill();
    await exited;
    const r = JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as {
      applied: number;
      cpuMs: number;
      seen: [number, number][];
    };
    const lags: number[] = [];
    let k = 0;
    for (const [seq, at] of [...committedAt].sort((a, b) => a[0] - b[0])) {
      while (k < r.seen.length && r.seen[k]![0] < seq) k++;
      if (k < r.seen.length) lags.push(r.seen[k]![1] - at);
    }
    lags.sort((a, b) => a - b);
    const pct = (q: number) => lags[Math.min(lags.length - 1, Math.ceil((q / 100) * lags.length) - 1)];
    await owner.end();
    process.stdout.write(
      JSON.stringify({
        rate,
        seconds,
        applied: r.applied,
        cpuMsPerEvent: Number((r.cpuMs / r.applied).toFixed(3)),
        lagMs: { p50: pct(50), p95: pct(95), max: pct(100) },
        loadavg: { atStart: Number(load0.toFixed(1)), atEnd: Number(os.loadavg()[0]!.toFixed(1)) },
      }) + '\n',
    );
  } finally {
    stopServerSync(server.dir, server.binDir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (opt.child) await child(opt.child);
else await main();
