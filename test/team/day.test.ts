// A team's day judged by the service's own ledger (issue 38). Three desks (support, back office, admin; one
// desk's clock ten minutes ahead), `serve` and the desks each a process of its own, a PostgreSQL of the
// day's own, the sandbox as the service. People charge cards (payment windows completed or closed), send
// unknown payments again, resolve exceptions (two desks at once on the same one, too), import callback
// files; an admin re-roles people; the service's customers pay late and it changes final statuses. Faults
// strike inside that work: a desk killed (SIGKILL) after its initialize was sent and before the answer,
// the service answering initialize past the client's time-out, desks killed at any moment and inside a
// pull's apply or a refold, a desk away past the stale-pending threshold (its clock moved on meanwhile),
// serve killed with callbacks on their way, PostgreSQL stopped with -m immediate, lines to PostgreSQL cut
// or silent.
//
// Once nothing moves, the verdict is the service's (day/verdict.ts): every desk and the team record
// against the sandbox's collections and delivery log and serve's journal, what each screen showed against
// what the service did for that operation's reference, one collection per charge operation, the repeat
// question asked, every refused outbox entry explained; the desks equal a fresh replay of team.events, as
// in the convergence test; and the day proves it did something (liveness).
//
// fast-check generates the day, so a failing run prints its seed and the last 30 operations, and shrinks:
//   DAY_SEED=123 npx vitest run test/team/day.test.ts      (inside scripts/with-keyring.sh)
// DAY_SEED (default DEFAULT_SEED below, a fixed day; with DAY_RUNS above 1 the later days follow from it),
// DAY_RUNS (default 1), DAY_GROUPS (default 120), DAY_FAULTS (default 8 beside one of each kind), DAY_TIME_MS
// (default 9 minutes: past it no new day starts, and fast-check reports what it found), DAY_SHRINK=0 (stop at
// the first failing day), DAY_VERBOSE=1 (each operation and fault as it happens). MD_DAY_DEBUG=1 keeps the
// day's folder (each desk's SQLite and log, serve's) and prints where it is.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstDifference, type DeskView } from './convergence/views.js';
import { sandboxKeysTemplate } from './convergence/world.js';
import { startWorld, type DayDesk, type DayWorld } from './day/world.js';
import {
  faultsArbitrary,
  groupsArbitrary,
  newDayLog,
  runFault,
  runOp,
  type DayLog,
  type Fault,
  type Op,
} from './day/ops.js';
import {
  checkCallbacks,
  checkCharges,
  checkCollections,
  checkLostTail,
  checkScreens,
  checkStale,
  explainRefusals,
  liveness,
  serviceCollections,
} from './day/verdict.js';
import { until } from '../support/wait.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-day-${process.pid}`;

const RUNS = Number(process.env.DAY_RUNS ?? 1);
const GROUPS = Number(process.env.DAY_GROUPS ?? 120);
const FAULTS = Number(process.env.DAY_FAULTS ?? 8);
// npm test runs one day of a fixed seed, chosen for comfortable liveness margins (docs/team.md, "The team day":
// 37 approved against 20, 15 declined or cancelled against 5, 23 and 12 resolutions against 5 and 3, 26 final
// statuses changed, 5 of them back): CI must not fail on a day that proved too little by chance. DAY_SEED
// runs another.
const DEFAULT_SEED = 4;
const SEED = Number(process.env.DAY_SEED ?? DEFAULT_SEED);
const TIME_MS = Number(process.env.DAY_TIME_MS ?? 9 * 60_000);
const TEN_MINUTES = 10 * 60_000;

let keysTemplate: string;
beforeAll(async () => {
  keysTemplate = await sandboxKeysTemplate();
}, 120_000);
afterAll(() => {
  if (keysTemplate) fs.rmSync(keysTemplate, { recursive: true, force: true });
});

/** Waits until nothing moves: every fault over, pages finished, callbacks delivered, desks at the head. */
async function settle(w: DayWorld): Promise<void> {
  for (const d of w.desks) await d.line.restore();
  await w.serve.line.restore();
  w.sb.controls.clearFaults();
  for (const d of w.desks) if (!d.alive()) await d.start();
  // Every page left open expires (15 service minutes) and the flip card flips (10): every collection final.
  await w.sb.controls.advanceClock(16 * 60_000);
  await w.sb.controls.callbacksSettled(120_000);
  let stableAt = -1;
  await until(
    'every desk has sent its outbox and applied the record to its head',
    async () => {
      const head = Number(
        (await w.owner.query<{ s: string }>('SELECT coalesce(max(seq), 0) AS s FROM team.events')).rows[0]!.s,
      );
      for (const d of w.desks) {
        const s = await d.settle();
        if (!s.signedIn || s.pending > 0 || s.lastSeq < head) return false;
      }
      const same = stableAt === head;
      stableAt = head;
      return same;
    },
    180_000,
  );
}

/** One day: returns why it failed the service's verdict (null when it did not), and prints its figures. */
async function day(groups: Op[][], faults: { afterMs: number; fault: Fault }[]): Promise<string | null> {
  const started = Date.now();
  const w = await startWorld({
    keysTemplate,
    roles: ['support', 'back_office', 'admin'],
    clockOffsetMs: { 2: TEN_MINUTES },
  });
  const log: DayLog = newDayLog();
  const tail = () => `last 30 operations:\n${log.lines.slice(-30).join('\n')}`;
  // DAY_VERBOSE=1: each line as it happens, with the minute it happened in the day.
  if (process.env.DAY_VERBOSE) {
    const push = log.lines.push.bind(log.lines);
    log.lines.push = (...l: string[]) => {
      for (const x of l) console.info(`${((Date.now() - started) / 1000).toFixed(1)} s ${x}`);
      return push(...l);
    };
  }
  try {
    // The fault track runs beside the people's work, each fault after its pause, wherever they are.
    // A fault left when the work is done still strikes (on the team's background work: pulls, callbacks).
    const track = (async () => {
      for (const { afterMs, fault } of faults) {
        await new Promise((r) => setTimeout(r, afterMs));
        await runFault(w, fault, log);
      }
    })();
    let i = 0;
    const work = (async () => {
      for (const group of groups) await Promise.all(group.map((op) => runOp(w, op, ++i, log)));
    })();
    // Either failing fails the day; both end before the verdict.
    await Promise.all([work, track]);
    await settle(w);
    const service = serviceCollections(w);
    const byName = new Map<string, DayDesk>(w.desks.map((d) => [d.name, d]));
    const replay = await w.openDesk('replay', 'finance');
    await until(
      'the replay desk has the record',
      async () => (await replay.settle()).lastSeq >= (await w.desks[0]!.settle()).lastSeq,
      60_000,
    );
    // What reconciliation makes of a pending collection depends on the desk's clock (stale pending past the
    // threshold; one desk is ten minutes ahead, one may come back from being away): every desk, and the
    // replay, are classified as of one moment on their own clocks, a minute ahead of every classification
    // made so far (their sweeps only ever move a collection on to stale pending), and each desk is held to
    // the replay classified as of its own clock.
    const at = Date.now() + 60_000;
    const views = new Map(
      await Promise.all(w.desks.map(async (d) => [d.name, await d.view(at + d.clockOffsetMs)] as const)),
    );
    const replays = new Map<number, DeskView>();
    for (const offset of [...new Set(w.desks.map((d) => d.clockOffsetMs))].sort((a, b) => a - b))
      replays.set(offset, await replay.view(at + offset));
    const expected = replays.values().next().value!;

    const problems: string[] = [...w.crashes];
    for (const [name, v] of [...views, ['replay', expected] as const])
      problems.push(...checkCollections(service, name, v));
    problems.push(...checkScreens(service, log));
    problems.push(...checkStale(service, log, views));
    problems.push(...(await checkCharges(w, service, log, byName)));
    problems.push(...(await checkCallbacks(w, service)));
    problems.push(...(await checkLostTail(w, log)));
    const refusals = await explainRefusals(log, w.desks);
    problems.push(...refusals.problems);
    for (const d of w.desks) {
      const name = d.name;
      const diff = firstDifference(views.get(name)!, replays.get(d.clockOffsetMs)!, [name, 'replay']);
      if (diff) problems.push(`${name} differs from a replay of team.events: ${diff}`);
    }
    const live = liveness(log);
    problems.push(...live.problems);

    const events = await w.owner.query<{ source: string; n: string }>(
      'SELECT source, count(*) AS n FROM team.events GROUP BY 1 ORDER BY 1',
    );
    // How often the service said a callback again after another status (docs/team.md, "The service said it again").
    const saidAgain = await w.owner.query<{ n: string }>(
      "SELECT count(*) AS n FROM team.events WHERE event_key ~ ':[0-9a-f]{64}:[0-9]+$'",
    );
    const restored = await w.owner.query<{ n: string }>(
      `SELECT count(*) AS n FROM team.events WHERE evidence::text LIKE '%"restored"%'`,
    );
    console.info(
      `team day: ${groups.flat().length} operations, ${Object.values(log.faults).reduce((a, b) => a + b, 0)} faults ` +
        `(${Object.entries(log.faults)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}), ${((Date.now() - started) / 60_000).toFixed(1)} min; ` +
        `service: ${service.size} collections; liveness ${JSON.stringify(live.got)}; outcomes ${JSON.stringify(log.counts)}; ` +
        `team.events ${events.rows.map((r) => `${r.source} ${r.n}`).join(', ')} (said again ${saidAgain.rows[0]!.n}); ` +
        `the failover lost ${log.lostTail.length} events, ${restored.rows[0]!.n} put back; ` +
        `refused outbox entries: ${refusals.listed.length ? refusals.listed.map((r) => `${r.desk} ${r.kind} ${r.reference}: ${r.reason} (${r.because || 'unexplained'})`).join('; ') : 'none'}`,
    );
    if (!problems.length) return null;
    // The record of the first references named: what a person debugging the day reads next.
    const refs = [...new Set(problems.join('\n').match(/MD-\d{8}-[A-Z0-9]+/g) ?? [])].slice(0, 3);
    const record = await w.owner.query<Record<string, unknown>>(
      `SELECT seq, merchant_reference AS ref, source, kind, status, actor, recorded_at,
              evidence::text LIKE '%"restored"%' AS restored
         FROM team.events WHERE merchant_reference = ANY($1) ORDER BY seq`,
      [refs],
    );
    const history = refs.map((r) => `${r} at the service: ${JSON.stringify(service.get(r)?.history ?? null)}`);
    const deliveries = w.sb.controls
      .callbackLog()
      .filter((e) => refs.includes(e.merchant_reference))
      .map((e) => `${e.merchant_reference} ${e.transaction_status} attempt ${e.attempt}: ${e.status} at ${e.at}`);
    return [
      ...problems,
      'team.events of those references:',
      ...record.rows.map((r) => JSON.stringify(r)),
      ...history,
      "the service's deliveries of their callbacks:",
      ...deliveries,
      tail(),
    ].join('\n');
  } catch (e) {
    return `the day failed: ${(e as Error).stack ?? String(e)}\n${tail()}`;
  } finally {
    await w.close();
  }
}

describe('a team day judged by the service', () => {
  it(
    "after a day of concurrent work with faults inside it, every desk, the team record and every screen agree with the service's ledger",
    async () => {
      // First, so a CI log names the day it ran (a failing day prints it again with fast-check's path).
      console.info(
        `team day: seed ${SEED}${process.env.DAY_SEED === undefined ? ' (the default; DAY_SEED runs another)' : ''}`,
      );
      await fc.assert(
        fc.asyncProperty(groupsArbitrary(3, GROUPS), faultsArbitrary(3, FAULTS), async (groups, faults) => {
          const why = await day(groups, faults);
          expect(why, why ?? '').toBeNull();
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          verbose: 1,
          // Past the time no new day starts (a shrink's included); the day under way always finishes.
          skipAllAfterTimeLimit: TIME_MS,
          // DAY_SHRINK=0: stop at the first failing day (while debugging one seed, a shrink is another day).
          ...(process.env.DAY_SHRINK === '0' ? { endOnFailure: true } : {}),
        },
      );
    },
    // The last day may start just before the time is up, on a machine shared with others.
    TIME_MS + 20 * 60_000,
  );
});
