// Disabling an operator must end them: after disableOperator returns, no session of that login exists
// and none can write. Sessions that sign in while the disable commits are the hard case, so six
// clients keep reconnecting and writing as the operator while an admin disables them, 20 times over.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../main/team/events.js';
import { disableOperator } from '../../main/operations/operators.js';
import { sleep, until } from '../support/wait.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let adminPool: pg.Pool;

beforeAll(async () => {
  team = await teamFixture();
  adminPool = team.signIn(await team.addOperator('admin'));
});
afterAll(async () => {
  await team?.close();
});

/** One client that connects, writes one event it may write, and disconnects, until stopped. */
function reconnectingWriter(url: string, stop: { now: boolean }) {
  let writes = 0;
  const done = (async () => {
    while (!stop.now) {
      const c = new pg.Client({ connectionString: url });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await appendEvents(c, [event()]);
        writes++;
      } catch {
        await sleep(5); // refused or ended: try again, as a desk would
      } finally {
        await c.end().catch(() => undefined);
      }
    }
  })();
  return { done, writes: () => writes };
}

const sessionsOf = async (login: string) =>
  Number((await team.owner.query('SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1', [login])).rows[0].n);
const topSeq = async () =>
  Number((await team.owner.query('SELECT coalesce(max(seq), 0) AS s FROM team.events')).rows[0].s);
const writesAfter = async (login: string, seq: number) =>
  Number(
    (await team.owner.query('SELECT count(*) AS n FROM team.events WHERE actor = $1 AND seq > $2', [login, seq]))
      .rows[0].n,
  );

describe('disabling an operator', () => {
  it('leaves no session of the login and no way to write, with 6 clients reconnecting (20 rounds)', async () => {
    const survivors: string[] = [];
    for (let round = 1; round <= 20; round++) {
      const login = await team.addOperator('support', `gone${round}`);
      const url = team.db.urlFor(login, team.password(login));
      const stop = { now: false };
      const clients = Array.from({ length: 6 }, () => reconnectingWriter(url, stop));
      // Let them get going: every client has written at least once.
      await until(`round ${round}: every client wrote`, () => clients.every((c) => c.writes() > 0), 10_000, 10);

      await disableOperator({ pool: adminPool }, login);
      const atReturn = await topSeq();
      const right = await sessionsOf(login);
      await sleep(300); // the clients keep trying meanwhile
      const later = await sessionsOf(login);
      const written = await writesAfter(login, atReturn);
      stop.now = true;
      await Promise.all(clients.map((c) => c.done));
      if (right || later || written)
        survivors.push(`round ${round}: ${right} then ${later} sessions, ${written} events written after disable`);
    }
    expect(survivors).toEqual([]);
  }, 180_000);

  it('a session that outlives the disable anyway cannot write: the database refuses a disabled actor', async () => {
    const login = await team.addOperator('support', 'stays');
    const open = new pg.Client({ connectionString: team.db.urlFor(login, team.password(login)) });
    open.on('error', () => undefined);
    await open.connect();
    // Marked disabled in the operators table without ending the session (as a disable racing a sign-in would leave it).
    await team.owner.query('UPDATE team.operators SET disabled_at = now() WHERE login = $1', [login]);
    await expect(appendEvents(open, [event()])).rejects.toMatchObject({
      name: 'TeamPermissionError',
      message: expect.stringMatching(new RegExp(`${login} is disabled`)),
    });
    await open.end();
  });
});
