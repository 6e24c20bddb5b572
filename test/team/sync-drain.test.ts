// A desk that is far behind the team (issue 23): it drains the backlog in slices that never hold the
// main thread for long, so what a person does meanwhile (a window's IPC call, a charge) is answered
// while it drains; and a desk process stopped by SIGTERM in the middle of a big backlog exits at once,
// cleanly, and after a restart holds every event exactly once. Real PostgreSQL, real SQLite files.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { sliceSizer, type TeamSyncStatus } from '../../main/team/sync/pull.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { startTeamSession } from '../../main/team/session.js';
import { systemClock } from '../../main/clock.js';
import { recordIntent } from '../../main/team/record.js';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { outboxCounts } from '../../main/collections/outbox.js';
import { chargeOn, newIntent, openDesk, quietLogger, type Desk } from './sync-desk.js';
import { history } from './new-desk.js';
import { forgetTeamKeys } from '../app/team-keychain.js';
import { testLedger } from '../support/ledger.js';
import { until } from '../support/wait.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

// This file's keychain entries (the desk process's offline check) stay apart from every other test file's.
process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-drain-${process.pid}`;

let team: TeamFixture;
let support: string;

beforeAll(async () => {
  team = await teamFixture();
  support = await team.addOperator('support');
}, 60_000);
afterAll(async () => {
  if (team) await forgetTeamKeys(deskUrl(), [support]);
  await team?.close();
});

/** Writes `events` as serve and the desks would, 1,000 per statement. */
async function write(events: readonly NewTeamEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await appendEvents(team.owner, events.slice(i, i + 1000));
}

/** At least `n` events of collections, their intents first (history() makes several events per collection). */
function backlog(n: number, prefix: string, seed: number): NewTeamEvent[] {
  let k = Math.ceil(n / 3);
  for (;;) {
    const h = history(k, prefix, seed);
    if (h.length >= n) return h;
    k = Math.ceil(k * 1.2);
  }
}

async function teamCount(): Promise<{ n: number; newest: number }> {
  const r = await team.owner.query<{ n: string; newest: string }>(
    'SELECT count(*) AS n, coalesce(max(seq), 0) AS newest FROM team.events',
  );
  return { n: Number(r.rows[0]!.n), newest: Number(r.rows[0]!.newest) };
}

/**
 * How long the event loop was held while `work` runs: between two turns of a 5 ms timer, the longest
 * wall time, and the most CPU time this process spent (on a quiet machine the two agree; on a busy one
 * the wall time also counts the time other processes had the cores, which the desk does not cause, so
 * the assertion is on the CPU time: what the desk itself did without letting anything else run).
 */
async function longestBlock<T>(work: () => Promise<T>): Promise<{ value: T; maxWallMs: number; maxCpuMs: number }> {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let maxWallMs = 0;
  let maxCpuMs = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    maxWallMs = Math.max(maxWallMs, now - last);
    maxCpuMs = Math.max(maxCpuMs, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  try {
    const value = await work();
    return { value, maxWallMs, maxCpuMs };
  } finally {
    clearInterval(probe);
  }
}

describe('slices sized by time', () => {
  it('start small, grow at most twofold a slice, shrink at once when one ran long, and never pass the page', () => {
    const s = sliceSizer(25, 1000);
    expect(s.size()).toBe(50);
    s.took(50, 1); // fast: doubles, not 1,250
    expect(s.size()).toBe(100);
    s.took(100, 10);
    expect(s.size()).toBe(200);
    s.took(200, 100); // a slice took 100 ms: 50 fit in 25 ms
    expect(s.size()).toBe(50);
    for (let i = 0; i < 10; i++) s.took(s.size(), 0);
    expect(s.size()).toBe(1000);
    s.took(1000, 100_000);
    expect(s.size()).toBe(1);
  });
});

describe('a desk draining a backlog stays responsive', () => {
  it('20,000 events behind: the event loop is never held for more than 150 ms, and a charge goes through while it drains', async () => {
    await write(backlog(20_000, 'MD-DRAIN', 23));
    const { newest, n } = await teamCount();
    expect(n).toBeGreaterThanOrEqual(20_000);
    // A desk that was away (its copy empty here, caught up event by event as a desk that is behind is).
    const desk: Desk = openDesk(team.signIn(support), { bulkStart: false });
    try {
      // A charge started once the drain is under way: the team's intent first, then the local copy.
      let charged: Promise<number> | null = null;
      let chargeDoneAt = 0;
      const seen: TeamSyncStatus['catchingUp'][] = [];
      const stop = desk.sync.onStatus((s) => {
        if (!s.catchingUp) return;
        seen.push(s.catchingUp);
        charged ??= (async () => {
          const t0 = performance.now();
          await chargeOn(desk, newIntent());
          chargeDoneAt = lastSeq(desk.db, 'events');
          return performance.now() - t0;
        })();
      });
      const { maxWallMs, maxCpuMs } = await longestBlock(() => desk.sync.pullNow());
      console.info(
        `draining ${n} events: the event loop was held at most ${maxCpuMs.toFixed(0)} ms of CPU (${maxWallMs.toFixed(0)} ms of wall time)`,
      );
      stop();
      expect(charged).not.toBeNull();
      const chargeMs = await charged!;

      expect(maxCpuMs).toBeLessThan(150);
      // Answered while the backlog drained, not after it.
      expect(chargeMs).toBeLessThan(2_000);
      expect(chargeDoneAt).toBeLessThan(newest);
      // The status bar heard how far behind it was, counting down.
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.every((p) => p!.totalSeq >= newest && p!.copiedSeq < newest)).toBe(true);
      expect(desk.sync.status().catchingUp).toBeNull();

      await desk.sync.pullNow(); // the charge's own events, recorded during the drain
      const after = await teamCount();
      expect(lastSeq(desk.db, 'events')).toBe(after.newest);
      expect(desk.db.prepare('SELECT count(*) FROM collection_events').pluck().get()).toBe(after.n);
    } finally {
      await desk.close();
    }
  }, 180_000);
});

describe("a charge's events go to the team while the desk drains", () => {
  it('the outbox push is not held back until the backlog is applied', async () => {
    const dir = fileTempDir('md-drain-push-');
    const file = path.join(dir, 'desk.sqlite');
    const session = (db: Db) =>
      startTeamSession({
        pool: team.signIn(support),
        login: support,
        role: 'support',
        db,
        ledger,
        clock: systemClock,
        logger: quietLogger,
        syncEveryMs: 60_000,
      });
    // The desk synced once, then was away while 10,000 events were recorded.
    await write(backlog(200, 'MD-PUSH-BEFORE', 26));
    let db = openDatabase(file);
    let s = session(db);
    await until('the first sync', () => s.sync.status().online && s.sync.status().lastPullAt !== null, 60_000, 10);
    await s.close();
    db.close();
    await write(backlog(10_000, 'MD-PUSH-AWAY', 27));
    const { newest } = await teamCount();

    db = openDatabase(file);
    s = session(db);
    try {
      await until('the drain to start', () => s.sync.status().catchingUp !== null, 60_000, 10);
      // A charge meanwhile: its intent in the team first, then its answer stored with an outbox row.
      const intent = { ...newIntent(), operator: support };
      await recordIntent(s.pool, intent);
      const id = saveIntentCollection(ledger, db, intent);
      ledger.append(
        db,
        {
          collectionId: id,
          merchantReference: intent.merchantReference,
          source: 'initiate',
          kind: 'initialize_accepted',
          status: 'PENDING',
          receivedAt: Date.now(),
          signature: 'not_applicable',
          internalReference: `INT-${intent.merchantReference}`,
          paymentUrl: `https://pay.example.invalid/${intent.merchantReference}`,
        },
        { outbox: true },
      );
      s.push.kick();
      const pushed = async () =>
        (
          await team.owner.query("SELECT 1 FROM team.events WHERE merchant_reference = $1 AND source = 'initiate'", [
            intent.merchantReference,
          ])
        ).rowCount === 1;
      for (const end = Date.now() + 60_000; !(await pushed()) && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      expect(await pushed()).toBe(true);
      // It reached the team before the desk had applied what it missed.
      expect(lastSeq(db, 'events')).toBeLessThan(newest);
      expect(outboxCounts(db).pending).toBe(0);
    } finally {
      await s.close();
      db.close();
    }
  }, 180_000);
});

describe('closing a desk that is still waiting', () => {
  it('for its evidence keys (the first connection attempt hangs): the close does not wait for them', async () => {
    const desk = openDesk(team.signIn(support), { evidenceReady: () => new Promise(() => undefined) });
    await new Promise((r) => setTimeout(r, 50)); // the first pull is waiting for the keys
    const t0 = performance.now();
    await desk.close();
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'drain-child.ts');

interface Running {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  lines: string[];
  pid: number;
  waitFor(re: RegExp, ms: number): Promise<string>;
}

/** The team database as a desk's settings name it (no password: the operator signs in). */
const deskUrl = () => `postgres://${team.db.server.host}:${team.db.server.port}/${team.db.name}`;

/** A data folder whose active profile is team, on this file's team database, signing in as `login`. */
function teamDataDir(login: string): string {
  const dataDir = fileTempDir('md-drain-');
  const db = openProfileDatabase(dataDir, 'team');
  try {
    updateSettings(db, {
      profile: 'team',
      baseUrl: 'http://127.0.0.1:9',
      teamDatabaseUrl: deskUrl(),
      teamLogin: login,
    });
  } finally {
    db.close();
  }
  writeActiveProfile(dataDir, 'team');
  return dataDir;
}

function startDesk(dataDir: string, login: string): Running {
  const p = spawn(process.execPath, ['--import', 'tsx', child, dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The operator's password goes in the environment, never in an argument.
    env: { ...process.env, MD_DRAIN_PASSWORD: team.password(login) },
  });
  const lines: string[] = [];
  let err = '';
  let buf = '';
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  p.stdout.on('data', (d) => {
    buf += String(d);
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of [...waiters])
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
    }
  });
  p.stderr.on('data', (d) => (err += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((r) =>
    p.on('exit', (code, signal) => r({ code, signal, at: performance.now() })),
  );
  return {
    exited,
    lines,
    pid: p.pid!,
    waitFor(re, ms) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return Promise.resolve(hit);
      return new Promise<string>((resolve, reject) => {
        const t = setTimeout(
          () =>
            reject(new Error(`no line matching ${re} within ${ms} ms; stdout: ${lines.join(' | ')}; stderr: ${err}`)),
          ms,
        );
        waiters.push({
          re,
          resolve: (l) => {
            clearTimeout(t);
            resolve(l);
          },
        });
        void exited.then(() => {
          clearTimeout(t);
          reject(new Error(`the desk exited before ${re}; stdout: ${lines.join(' | ')}; stderr: ${err}`));
        });
      });
    },
  };
}

describe('a desk stopped while it drains a big backlog', () => {
  it('SIGTERM: it exits within 2 s with code 0; restarted, it holds every event exactly once', async () => {
    const file = teamDataDir(support);
    // The desk has synced before (its first start copies what there is), then was away while much happened.
    await write(backlog(300, 'MD-BEFORE', 25));
    const before = startDesk(file, support);
    await before.waitFor(/^up to date/, 120_000);
    process.kill(before.pid, 'SIGTERM');
    expect((await before.exited).code).toBe(0);
    await write(backlog(30_000, 'MD-STOP', 24));
    const total = await teamCount();

    const first = startDesk(file, support);
    await first.waitFor(/^applied [1-9]/, 90_000); // draining: some slices are in
    const sent = performance.now();
    process.kill(first.pid, 'SIGTERM');
    const gone = await first.exited;
    const tookMs = gone.at - sent;
    console.info(
      `SIGTERM while draining: the desk process exited after ${tookMs.toFixed(0)} ms with code ${gone.code}`,
    );
    expect({ code: gone.code, signal: gone.signal }).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(2_000);

    const db = openProfileDatabase(file, 'team');
    try {
      const stoppedAt = lastSeq(db, 'events');
      expect(stoppedAt).toBeGreaterThan(0);
      expect(stoppedAt).toBeLessThan(total.newest); // it stopped in the middle, not at the end
    } finally {
      db.close();
    }

    const second = startDesk(file, support);
    await second.waitFor(/^up to date/, 120_000);
    process.kill(second.pid, 'SIGTERM');
    expect((await second.exited).code).toBe(0);

    const after = openProfileDatabase(file, 'team');
    try {
      expect(lastSeq(after, 'events')).toBe(total.newest);
      // Every event of the team record once: none lost at the stop, none applied twice after it.
      expect(after.prepare('SELECT count(*) FROM collection_events').pluck().get()).toBe(total.n);
      expect(
        after
          .prepare(
            'SELECT count(*) FROM (SELECT dedupe_key FROM collection_events GROUP BY dedupe_key HAVING count(*) > 1)',
          )
          .pluck()
          .get(),
      ).toBe(0);
    } finally {
      after.close();
    }
  }, 240_000);
});
