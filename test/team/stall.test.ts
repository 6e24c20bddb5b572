// No login can hold up the team's writers: one without write grants cannot take the lock writers
// queue on, and a writer that stalls inside its transaction is ended by the database within seconds,
// whatever its client does. Readers of the record never wait for writers at all.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, pullSince } from '../../main/team/events.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let support: string;
let support2: string;
let finance: string;
const clients: pg.Client[] = [];

beforeAll(async () => {
  team = await teamFixture();
  support = await team.addOperator('support');
  support2 = await team.addOperator('support');
  finance = await team.addOperator('finance');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await team?.close();
});

async function client(login: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: team.db.urlFor(login, team.password(login)) });
  c.on('error', () => undefined); // a session the server ends
  clients.push(c);
  await c.connect();
  return c;
}

/** How long `work` took, or 'stalled' when it had not finished after `limitMs`. */
async function timed(work: Promise<unknown>, limitMs: number): Promise<number | 'stalled'> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>((r) => (timer = setTimeout(() => r('stalled'), limitMs)));
  try {
    const r = await Promise.race([work.then(() => Date.now() - start), stalled]);
    return r;
  } finally {
    clearTimeout(timer);
  }
}

describe('writers cannot be stalled', () => {
  it("a finance login holding the app's advisory lock does not hold up an event write", async () => {
    const fin = await client(finance);
    await fin.query('SELECT pg_advisory_lock(19780, 1), pg_advisory_lock(19780, 2), pg_advisory_lock(19780, 3)');
    try {
      const write = appendEvents(team.signIn(support), [event()]);
      expect(await timed(write, 5000)).not.toBe('stalled');
    } finally {
      await fin.query('SELECT pg_advisory_unlock_all()');
    }
  }, 20_000);

  it('a login without write grants cannot take the lock writers queue on, or lock the events', async () => {
    const fin = await client(finance);
    const turns = await team.owner.query<{ t: string }>(
      `SELECT c.oid::regclass::text AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'team' AND c.relname LIKE '%write_turn' ORDER BY 1`,
    );
    expect(turns.rows.map((r) => r.t)).toEqual([
      'team.balance_snapshots_write_turn',
      'team.events_write_turn',
      'team.payment_option_lists_write_turn',
    ]);
    for (const { t } of turns.rows) {
      for (const mode of ['ACCESS SHARE', 'ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE']) {
        await fin.query('BEGIN');
        await expect(fin.query(`LOCK TABLE ${t} IN ${mode} MODE`)).rejects.toMatchObject({ code: '42501' });
        await fin.query('ROLLBACK');
      }
    }
    await fin.query('BEGIN');
    await expect(fin.query('LOCK TABLE team.events IN SHARE MODE')).rejects.toMatchObject({ code: '42501' });
    await fin.query('ROLLBACK');
    await expect(fin.query('SELECT seq FROM team.events FOR KEY SHARE')).rejects.toMatchObject({ code: '42501' });
    // A support login writes events but cannot take the turn outside an insert either.
    const sup = await client(support);
    await sup.query('BEGIN');
    await expect(sup.query('LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE')).rejects.toMatchObject({
      code: '42501',
    });
    await sup.query('ROLLBACK');
  });

  it('a writer idle inside its transaction is ended within seconds, and the next writer goes on', async () => {
    const stuck = await client(support);
    await stuck.query('BEGIN');
    await appendEvents(stuck, [event()]);
    // Readers are never held up by a writer.
    expect(await timed(pullSince(team.signIn(finance), 0, 10), 1000)).not.toBe('stalled');

    const next = appendEvents(team.signIn(support2), [event()]);
    const took = await timed(next, 10_000);
    expect(took).not.toBe('stalled');
    expect(took).toBeGreaterThan(1000); // it did wait for the stuck writer, briefly
    await expect(stuck.query('SELECT 1')).rejects.toThrow();
  }, 30_000);

  it('a writer that sleeps inside its transaction is ended within seconds, and the next writer goes on', async () => {
    const stuck = await client(support);
    await stuck.query('BEGIN');
    await appendEvents(stuck, [event()]);
    const sleeping = stuck.query('SELECT pg_sleep(60)').catch((e: Error) => e);

    const next = appendEvents(team.signIn(support2), [event()]);
    expect(await timed(next, 10_000)).not.toBe('stalled');
    expect(await sleeping).toBeInstanceOf(Error);
  }, 30_000);

  it('a waiting writer gives up with a clear error rather than wait forever', async () => {
    // The owner (not an operator, no timeouts of its own) holds the turn as long as it likes.
    const owner = await team.owner.connect();
    try {
      await owner.query('BEGIN');
      await owner.query('LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE');
      const write = appendEvents(team.signIn(support2), [event()]).catch((e: Error) => e);
      expect(await timed(write, 15_000)).not.toBe('stalled');
      // Retried like an outage (a desk keeps the events, serve answers 503), not dropped as a refusal.
      expect(await write).toMatchObject({
        name: 'TeamUnavailableError',
        code: '55P03',
        message: expect.stringMatching(/^the team database is busy: another writer held it too long/),
      });
    } finally {
      await owner.query('ROLLBACK');
      owner.release();
    }
  }, 30_000);
});
