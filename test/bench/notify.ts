// What telling the window costs main per applied team event (issue 23, "updates coalesced end to end"):
// a real PostgreSQL and the real sync (startTeamSync) applying pulled events into a fresh SQLite, with
// main's events pushed to a counting sender that serializes each payload as both shells do (the
// Chromium shell's page.evaluate, Electron's webContents.send). Two wirings in the same run, alternated:
//  - per-collection: a notice per changed collection, each pushed at once (the wiring before issue 23);
//  - batched: app/team-notices.ts (one notice per batch) and the paced push (ipc/push.ts), as shipped.
// The notify CPU is measured with process.cpuUsage around onApplied and around every push (trailing
// pushes run from timers), so the apply itself is left out; the apply's own CPU is reported beside it.
// It does not measure the window's re-reads: each push the window gets is (at most) one re-read there.
//
//   npm run bench:notify -- [--events 5000] [--collections 1000] [--batch 5000] [--rounds 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../../main/clock.js';
import { createEventBus, type AppEventBus } from '../../main/app/event-bus.js';
import { teamNotices } from '../../main/app/team-notices.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { migrate } from '../../main/team/migrate.js';
import { openTeamPool } from '../../main/team/pool.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { recordIntent } from '../../main/team/record.js';
import { startTeamSync } from '../../main/team/sync/pull.js';
import type { ChangedCollection } from '../../main/team/sync/apply.js';
import { startServer, stopServerSync } from '../support/postgres-server.js';
import { createDb } from './team-history.js';
import { composeLedger } from '../../main/app/ledger.js';

const { ledger } = composeLedger(); // as composeCore does: the ledger reconciles what it stores

const { values: opt } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    collections: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(opt.events);
const COLLECTIONS = Number(opt.collections);
const BATCH = Number(opt.batch);
const ROUNDS = Number(opt.rounds);
const log = (m: string) => process.stderr.write(`[notify] ${m}\n`);
const quiet = { info() {}, warn() {} };
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

type Wiring = 'per-collection' | 'batched';

/** onApplied as each wiring has it, and the push's pacing (0: every push at once). */
function wire(w: Wiring, bus: AppEventBus, db: Parameters<typeof teamNotices>[1]) {
  if (w === 'batched') return { onApplied: teamNotices(bus, db).onApplied, everyMs: undefined };
  return {
    onApplied: (changed: ChangedCollection[]) => {
      for (const c of changed) bus.emit('collection.changed', c);
    },
    everyMs: 0,
  };
}

async function run(url: string, w: Wiring, work: string, round: number) {
  const file = path.join(work, `${w}-${round}.sqlite`);
  const db = openDatabase(file);
  const pool = openTeamPool(url);
  const bus = createEventBus();
  const wiring = wire(w, bus, db);
  let notifyCpu = 0;
  let depth = 0;
  /** CPU of fn, counted once however the notify calls nest (a push inside onApplied). */
  const counted =
    <A extends unknown[]>(fn: (...a: A) => void) =>
    (...a: A) => {
      if (depth++) {
        try {
          return fn(...a);
        } finally {
          depth--;
        }
      }
      const t = cpuNow();
      try {
        return fn(...a);
      } finally {
        notifyCpu += cpuNow() - t;
        depth--;
      }
    };
  let pushes = 0;
  let bytes = 0;
  const off = pushToRenderer(
    bus,
    counted((event, payload) => {
      pushes++;
      bytes += JSON.stringify([event, payload]).length; // what either shell serializes to the window
    }),
    wiring.everyMs === undefined ? {} : { everyMs: wiring.everyMs },
  );
  const sync = startTeamSync({
    pool,
    db,
    ledger,
    clock: systemClock,
    logger: quiet,
    pollEveryMs: 3_600_000,
    batchSize: BATCH,
    bulkStart: false,
    snapshots: false,
    chainRecheckEveryMs: 0,
    onApplied: counted(wiring.onApplied),
  });
  const t0 = cpuNow();
  const w0 = performance.now();
  const applied = await sync.pullNow();
  const totalCpu = cpuNow() - t0;
  const wall = performance.now() - w0;
  await new Promise((r) => setTimeout(r, 300)); // a trailing push goes out
  off();
  await sync.close();
  await pool.end();
  db.close();
  return { applied, pushes, bytes, notifyCpuUs: notifyCpu, totalCpuUs: totalCpu, wallMs: wall };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-notify-'));
log('starting PostgreSQL');
const server = await startServer();
try {
  const url = await createDb(server, 'notify_bench');
  const owner = openTeamPool(url);
  await migrate(owner);
  log(`writing ${COLLECTIONS} intents and ${EVENTS} answers to them`);
  const refs: string[] = [];
  for (let i = 0; i < COLLECTIONS; i++) {
    const ref = `MD-NOTIFY-${i}`;
    refs.push(ref);
    await recordIntent(owner, {
      merchantReference: ref,
      createdAt: Date.now(),
      amountMinor: 150_000 + i,
      currency: 'UGX',
      description: `Phone order ${i}`,
      customerName: 'Amina Hassan',
      customerEmail: null,
      chargeCustomer: false,
      allowFinalStatusChange: true,
      operator: 'bench',
      providerCode: 'CARD_UGX',
      redirectUrl: 'https://merchant-desk.invalid/return',
      cardBrand: 'visa',
      cardLast4: '4242',
    });
  }
  const answers: NewTeamEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
    eventKey: `bench:notify:${i}`,
    merchantReference: refs[i % COLLECTIONS]!,
    source: 'initiate',
    kind: 'initialize_accepted',
    status: 'PENDING',
    amountMinor: 150_000 + (i % COLLECTIONS),
    currency: 'UGX',
    signature: 'not_applicable',
    payload: null,
    occurredAt: Date.now() + i,
  }));
  for (let i = 0; i < answers.length; i += 2000) await appendEvents(owner, answers.slice(i, i + 2000));
  await owner.end();

  const results: Record<Wiring, Awaited<ReturnType<typeof run>>[]> = { 'per-collection': [], batched: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (const w of ['per-collection', 'batched'] as const) {
      const r = await run(url, w, work, round);
      log(
        `${w} round ${round + 1}: ${r.applied} events applied, ${r.pushes} pushes, notify ${(r.notifyCpuUs / 1000).toFixed(1)} ms CPU, all ${(r.totalCpuUs / 1000).toFixed(0)} ms CPU`,
      );
      results[w].push(r);
    }
  const summary = Object.fromEntries(
    (Object.keys(results) as Wiring[]).map((w) => {
      const rs = results[w];
      const applied = rs[0]!.applied; // the intents and their answers
      return [
        w,
        {
          appliedEvents: applied,
          pushesToWindow: median(rs.map((r) => r.pushes)),
          bytesToWindow: median(rs.map((r) => r.bytes)),
          notifyCpuUsPerEvent: +(median(rs.map((r) => r.notifyCpuUs)) / applied).toFixed(3),
          allCpuUsPerEvent: +(median(rs.map((r) => r.totalCpuUs)) / applied).toFixed(1),
        },
      ];
    }),
  ) as unknown as Record<Wiring, { notifyCpuUsPerEvent: number; pushesToWindow: number }>;
  const ratio = summary['per-collection'].notifyCpuUsPerEvent / Math.max(summary.batched.notifyCpuUsPerEvent, 0.001);
  process.stdout.write(
    JSON.stringify(
      {
        bench: 'notify',
        node: process.version,
        events: EVENTS,
        collections: COLLECTIONS,
        batchSize: BATCH,
        rounds: ROUNDS,
        ...summary,
        notifyCpuRatio: +ratio.toFixed(1),
      },
      null,
      2,
    ) + '\n',
  );
} finally {
  stopServerSync(server.dir, server.binDir);
  fs.rmSync(work, { recursive: true, force: true });
}
