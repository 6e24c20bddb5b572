// Desks that converge (issue 28): three desks of one team, a real PostgreSQL, the sandbox and `serve`,
// and a few hundred operations of an ordinary day (charges with their payment windows, customers paying
// later, the service changing a final status, resolutions of exceptions and orphan callbacks, callback
// imports, an admin re-roling people, outages of a desk's line to the database, restarts) interleaved at
// random, a few at the same moment. Once nothing moves any more, every desk's collections, events,
// reconciliation rows and orphan callbacks equal, row for row, those of a desk that replays the team record
// from nothing (test/team/convergence/views.ts says what "row for row" compares).
//
// fast-check generates the day, so a failing run prints its seed and shrinks to its smallest day:
//   CONVERGENCE_SEED=123 CONVERGENCE_RUNS=1 npx vitest run test/team/convergence.test.ts
// CONVERGENCE_RUNS (default 1), CONVERGENCE_GROUPS (default 150 groups of 1-3 operations),
// CONVERGENCE_TIME_MS (default 15 minutes: past it fast-check stops, shrinking included, and reports the
// smallest failing day it found with its seed and path). CONVERGENCE_DEBUG=1 keeps each day's folder (every
// desk's SQLite file and its log, written as the app writes it, debug level) and prints where it is.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deskView, firstDifference, refusedKeys } from './convergence/views.js';
import { groupsArbitrary, runOp, type Op } from './convergence/ops.js';
import { sandboxKeysTemplate, startWorld } from './convergence/world.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-convergence-${process.pid}`;

const RUNS = Number(process.env.CONVERGENCE_RUNS ?? 1);
const GROUPS = Number(process.env.CONVERGENCE_GROUPS ?? 150);
const SEED = process.env.CONVERGENCE_SEED === undefined ? undefined : Number(process.env.CONVERGENCE_SEED);
const TIME_MS = Number(process.env.CONVERGENCE_TIME_MS ?? 15 * 60_000);

let keysTemplate: string;
beforeAll(async () => {
  keysTemplate = await sandboxKeysTemplate();
}, 120_000);
afterAll(() => {
  if (keysTemplate) fs.rmSync(keysTemplate, { recursive: true, force: true });
});

/** One day of the team: runs it and returns why the desks did not converge, or null. */
async function day(groups: Op[][]): Promise<string | null> {
  const world = await startWorld({ keysTemplate, roles: ['support', 'back_office', 'admin'] });
  const log: string[] = [];
  try {
    for (const group of groups) await Promise.all(group.map((op) => runOp(world, op, log)));
    await world.quiesce(90_000);
    const replay = await world.replayDesk();
    await world.quiesce(90_000);
    await replay.core.team()!.sync.pullNow();
    const expected = deskView(replay.core.db);
    // What the day did, in the test's output: a run that converged on nothing would prove nothing.
    const counts = await world.team.owner.query<{ source: string; kind: string; n: string }>(
      'SELECT source, kind, count(*) AS n FROM team.events GROUP BY 1, 2 ORDER BY 1, 2',
    );
    console.info(
      `convergence: ${groups.flat().length} operations; team.events: ${counts.rows.map((r) => `${r.source}/${r.kind} ${r.n}`).join(', ')}; ` +
        `exceptions open on the replay: ${expected.reconciliation.filter((r) => r.is_exception === 1).length}`,
    );
    for (const d of world.desks) {
      const got = deskView(d.core.db, { leaveOut: refusedKeys(d.core.db) });
      const diff = firstDifference(got, expected, [d.name, 'replay']);
      if (diff)
        return `${d.name} (${d.login}) differs from a replay of team.events: ${diff}\nlog tail:\n${log.slice(-30).join('\n')}`;
    }
    return null;
  } finally {
    await world.close();
  }
}

describe('desks converge', () => {
  it(
    'after a day of concurrent operations with outages and restarts, every desk equals a fresh replay of team.events, row for row',
    async () => {
      await fc.assert(
        fc.asyncProperty(groupsArbitrary(3, GROUPS), async (groups) => {
          const why = await day(groups);
          expect(why, why ?? '').toBeNull();
        }),
        {
          numRuns: RUNS,
          ...(SEED !== undefined ? { seed: SEED } : {}),
          verbose: 1,
          interruptAfterTimeLimit: TIME_MS,
          markInterruptAsFailure: false,
        },
      );
    },
    TIME_MS + 5 * 60_000,
  );
});
