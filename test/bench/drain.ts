// A desk that was away drains a backlog (issue 23): how much memory its process takes and how long its
// event loop is held while it applies N events it missed, and how long a SIGTERM-like close takes in the
// middle of it. Starts a throw-away PostgreSQL (test/support/postgres-server.ts), writes a history of
// intents and signed callbacks (with the evidence a desk checks), lets a desk catch up to a first part,
// then measures the drain of the rest in a fresh process (so its memory is the desk's alone).
//   npx tsx test/bench/drain.ts [--events 50000] [--slice-ms 25] [--keep]
// --slice-ms 100000: one SQLite transaction per page of 5,000 events, as a desk drained before slicing.
// Prints ONE JSON object.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
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

const log = (msg: string) => process.stderr.write(`[drain ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const quiet = { info() {}, warn() {} };
const keys: SignatureKeys = { signingKey: BENCH_SIGNING_KEY, servicePublicKey: null };

const { values: opt } = parseArgs({
  options: {
    events: { type: 'string', default: '50000' },
    'slice-ms': { type: 'string', default: '25' },
    keep: { type: 'boolean', default: false },
    child: { type: 'string' },
    'stop-after-ms': { type: 'string' },
    // Extra runs of the whole drain with environment changes, e.g. --variant MALLOC_ARENA_MAX=2 (repeatable;
    // several settings in one variant separated by ';'), to see what the process's memory is made of.
    variant: { type: 'string', multiple: true, default: [] },
  },
  strict: true,
});

/** Two events per collection: its intent, then the service's signed callback. */
function history(collections: number, prefix: string): NewTeamEvent[] {
  const out: NewTeamEvent[] = [];
  const t0 = Date.UTC(2026, 10, 1);
  for (let i = 1; i <= collections; i++) {
    const ref = `${prefix}-${i}`;
    const internal = `INT-${ref}`;
    const amount = 1000 + ((i * 7919) % 100_000);
    const at = t0 + i * 1000;
    out.push({
      eventKey: `intent:${ref}`,
      merchantReference: ref,
      source: 'intent',
      kind: 'intent',
      status: 'INTENT',
      amountMinor: amount,
      currency: 'UGX',
      signature: 'not_applicable',
      payload: JSON.stringify({
        description: `Order ${i}`,
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
    });
    out.push({
      eventKey: `callback:${ref}:COMPLETED`,
      merchantReference: ref,
      internalReference: internal,
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      amountMinor: amount,
      currency: 'UGX',
      signature: 'verified',
      payload: callbackPayload(ref, internal, 'COMPLETED', 'UGX', amount, i),
      statusMessage: 'Approved',
      evidence: signedEvidence('callback', ref, internal, 'COMPLETED', at + 500),
      occurredAt: at + 500,
    });
  }
  return out;
}

/** The desk's side, in its own process: drains to the end (or closes after --stop-after-ms), measured. */
async function child(file: string): Promise<void> {
  // A variant may set V8 flags the way the desk's shells do at their start (--variant MD_DRAIN_V8_FLAGS=...).
  if (process.env.MD_DRAIN_V8_FLAGS) v8.setFlagsFromString(process.env.MD_DRAIN_V8_FLAGS);
  const { ledger } = composeLedger(); // as composeCore does
  const url = process.env.MD_DRAIN_TEAM_URL!;
  const pool = openTeamPool(url, { onIdleError: () => undefined });
  const db = openDatabase(file);
  const from = lastSeq(db, 'events');
  let rssPeak = process.memoryUsage().rss;
  let heapPeak = process.memoryUsage().heapUsed;
  // What the resident memory held when it peaked: V8's heap (committed), memory outside it that V8
  // tracks (Buffers, strings handed to native code), and the rest (SQLite's cache, malloc's arenas).
  let atPeak = process.memoryUsage();
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let maxWall = 0;
  let maxCpu = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    maxWall = Math.max(maxWall, now - last);
    maxCpu = Math.max(maxCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
    const m = process.memoryUsage();
    if (m.rss > rssPeak) atPeak = m;
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 5);
  const rssStart = process.memoryUsage().rss;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const sync = startTeamSync({
    pool,
    db,
    ledger,
    clock: systemClock,
    logger: quiet,
    pollEveryMs: 3_600_000,
    bulkStart: false,
    sliceMs: Number(opt['slice-ms']),
    evidenceKeys: () => keys,
  });
  let closeMs: number | null = null;
  const stopAfter = opt['stop-after-ms'] === undefined ? null : Number(opt['stop-after-ms']);
  if (stopAfter !== null) {
    await new Promise((r) => setTimeout(r, stopAfter));
    const c = performance.now();
    await sync.close();
    await pool.end();
    closeMs = performance.now() - c;
  } else await sync.pullNow();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(probe);
  const to = lastSeq(db, 'events');
  if (stopAfter === null) {
    await sync.close();
    await pool.end();
  }
  db.close();
  const mb = (b: number) => Math.round(b / 1024 / 1024);
  process.stdout.write(
    JSON.stringify({
      appliedSeqs: to - from,
      seconds: Number(seconds.toFixed(1)),
      cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
      eventsPerSecond: Math.round((to - from) / seconds),
      rssStartMB: mb(rssStart),
      rssPeakMB: mb(rssPeak),
      heapPeakMB: mb(heapPeak),
      atRssPeakMB: {
        heapCommitted: mb(atPeak.heapTotal),
        heapUsed: mb(atPeak.heapUsed),
        external: mb(atPeak.external),
        outsideV8: mb(atPeak.rss - atPeak.heapTotal - atPeak.external),
      },
      maxEventLoopBlockCpuMs: Math.round(maxCpu),
      maxEventLoopBlockWallMs: Math.round(maxWall),
      closeMs: closeMs === null ? null : Math.round(closeMs),
    }) + '\n',
  );
}

function runChild(
  file: string,
  url: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const me = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', me, '--child', file, '--slice-ms', String(opt['slice-ms']), ...extra],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env, MD_DRAIN_TEAM_URL: url } },
    );
    let out = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`child exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  // The desk's first sync below runs in this process: its bulk start reconciles through the ledger.
  const { ledger } = composeLedger();
  const events = Number(opt.events);
  if (!Number.isInteger(events) || events < 2) throw new Error('--events must be a whole number of at least 2');
  const server = await startServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-drain-'));
  try {
    const url = await createDb(server, 'bench_drain');
    const owner = openTeamPool(url);
    await migrate(owner);
    const write = async (evs: readonly NewTeamEvent[]) => {
      for (let i = 0; i < evs.length; i += 2000) await appendEvents(owner, evs.slice(i, i + 2000));
    };
    // The desk synced once (a small history), then was away while `events` more were recorded.
    await write(history(500, 'MD-BEFORE'));
    const file = path.join(dir, 'desk.sqlite');
    {
      const db = openDatabase(file);
      const sync = startTeamSync({
        pool: owner,
        db,
        ledger,
        clock: systemClock,
        logger: quiet,
        pollEveryMs: 3_600_000,
        evidenceKeys: () => keys,
      });
      await sync.pullNow();
      await sync.close();
      db.close();
    }
    log(`writing ${events} events`);
    await write(history(Math.floor(events / 2), 'MD-AWAY'));
    await owner.query('CHECKPOINT');
    fs.copyFileSync(file, `${file}.away`);
    log('a close in the middle of the drain');
    const stop = await runChild(`${file}`, url, ['--stop-after-ms', '3000']);
    fs.copyFileSync(`${file}.away`, file);
    for (const side of ['-wal', '-shm']) fs.rmSync(file + side, { force: true });
    log('the whole drain');
    const drain = await runChild(file, url);
    const variants: Record<string, unknown> = {};
    for (const v of opt.variant) {
      fs.copyFileSync(`${file}.away`, file);
      for (const side of ['-wal', '-shm']) fs.rmSync(file + side, { force: true });
      log(`the whole drain with ${v}`);
      const env = Object.fromEntries(
        v.split(';').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
      variants[v] = await runChild(file, url, [], env);
    }
    await owner.end();
    process.stdout.write(
      JSON.stringify({
        events,
        sliceMs: Number(opt['slice-ms']),
        cpus: os.cpus().length,
        loadavg: os.loadavg().map((x) => Number(x.toFixed(1))),
        drain,
        stopMidDrain: stop,
        variants,
      }) + '\n',
    );
  } finally {
    if (!opt.keep) {
      stopServerSync(server.dir, server.binDir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (opt.child) await child(opt.child);
else await main();
