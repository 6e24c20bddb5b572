import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeamFieldError, TeamPermissionError, TeamUnavailableError } from '../../main/team/errors.js';
import { appendEvents, pullSince, type TeamEvent } from '../../main/team/events.js';
import { listen } from '../../main/team/listen.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let support: string;
let backOffice: string;

beforeAll(async () => {
  team = await teamFixture();
  support = await team.addOperator('support');
  backOffice = await team.addOperator('back_office');
});
afterAll(async () => {
  await team?.close();
});

const count = async () => Number((await team.owner.query('SELECT count(*) AS n FROM team.events')).rows[0].n);

describe('appendEvents', () => {
  it('stores an event once however often it is written, by whoever', async () => {
    const pool = team.signIn(support);
    const e = event();
    const first = await appendEvents(pool, [e]);
    expect(first.stored).toEqual([{ eventKey: e.eventKey, seq: expect.any(Number) }]);
    const before = await count();
    // A retry after a lost answer, the same key twice in one batch, another login writing it: nothing new.
    expect(await appendEvents(pool, [e])).toEqual({ stored: [], duplicates: [e.eventKey] });
    const e2 = event();
    const batch = await appendEvents(pool, [e2, e2]);
    expect(batch.stored.map((s) => s.eventKey)).toEqual([e2.eventKey]);
    expect(batch.duplicates).toEqual([e2.eventKey]);
    expect(await appendEvents(team.signIn(backOffice), [{ ...e, source: 'security' }])).toEqual({
      stored: [],
      duplicates: [e.eventKey],
    });
    expect(await count()).toBe(before + 1);
  });

  it('names the field of a bad event and stores none of the batch', async () => {
    const pool = team.signIn(support);
    const before = await count();
    const good = event();
    await expect(appendEvents(pool, [good, event({ currency: 'naira' })])).rejects.toThrow(
      new TeamFieldError('events[1].currency', 'must be three capital letters, e.g. NGN (got "naira")'),
    );
    await expect(appendEvents(pool, [event({ amountMinor: 1.5 })])).rejects.toThrow(
      /^events\[0\]\.amountMinor: must be an integer/,
    );
    await expect(appendEvents(pool, [event({ source: 'fax' as never })])).rejects.toThrow(
      /^events\[0\]\.source: must be one of/,
    );
    await expect(appendEvents(pool, [event({ occurredAt: Number.NaN })])).rejects.toThrow(/^events\[0\]\.occurredAt: /);
    expect(await count()).toBe(before);
  });

  it('keeps what was written exactly, and takes seq, actor and recorded time from the database', async () => {
    const e = event({
      payload: '{"a": 1,  "b":"ü"}\n',
      note: null,
      internalReference: 'INT-9',
      amountMinor: 9_007_199_254_740_991,
    });
    const t0 = Date.now();
    const { stored } = await appendEvents(team.signIn(support), [e]);
    const pulled = await pullSince(team.owner, stored[0]!.seq - 1, 1);
    const got = pulled.events[0]!;
    expect(got).toMatchObject({ ...e, seq: stored[0]!.seq, actor: support, note: null, status: 'PENDING' });
    expect(got.recordedAt).toBeGreaterThanOrEqual(t0 - 1000);
  });
});

describe('pullSince', () => {
  it('hands every event over once, in seq order, in batches', async () => {
    const start = (await pullSince(team.owner, 0, 50_000)).lastSeq;
    const pool = team.signIn(support);
    const written: string[] = [];
    for (let b = 0; b < 5; b++) {
      const batch = Array.from({ length: 500 }, () => event());
      await appendEvents(pool, batch);
      written.push(...batch.map((e) => e.eventKey));
    }
    const seen: TeamEvent[] = [];
    let after = start;
    let pulls = 0;
    for (;;) {
      const r = await pullSince(team.signIn(backOffice), after, 700);
      pulls++;
      seen.push(...r.events);
      expect(r.lastSeq).toBe(r.events.length ? r.events.at(-1)!.seq : after);
      after = r.lastSeq;
      if (!r.more) break;
    }
    expect(pulls).toBe(4);
    expect(seen.map((e) => e.eventKey)).toEqual(written);
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await pullSince(pool, after, 10)).toEqual({ events: [], lastSeq: after, more: false });
  });

  it('never shows a later seq before an earlier one commits (writers commit in seq order)', async () => {
    const a = new pg.Client({ connectionString: team.db.urlFor(support, team.password(support)) });
    const b = new pg.Client({ connectionString: team.db.urlFor(backOffice, team.password(backOffice)) });
    await a.connect();
    await b.connect();
    try {
      const from = (await pullSince(team.owner, 0, 50_000)).lastSeq;
      await a.query('BEGIN');
      const first = await appendEvents(a, [event()]); // holds seq N, not committed
      let bDone = false;
      const second = appendEvents(b, [event({ source: 'callback', signature: 'verified' })]).then((r) => {
        bDone = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      // b waits for a: otherwise a puller could see N+1, move past it, and never see N.
      expect(bDone).toBe(false);
      expect((await pullSince(team.owner, from, 100)).events).toEqual([]);
      await a.query('COMMIT');
      const secondResult = await second;
      expect(secondResult.stored[0]!.seq).toBeGreaterThan(first.stored[0]!.seq);
      const pulled = await pullSince(team.owner, from, 100);
      expect(pulled.events.map((e) => e.seq)).toEqual([first.stored[0]!.seq, secondResult.stored[0]!.seq]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('refuses a bad cursor or batch size by name', async () => {
    await expect(pullSince(team.owner, -1)).rejects.toThrow(/^afterSeq: /);
    await expect(pullSince(team.owner, 0, 0)).rejects.toThrow(/^limit: /);
  });
});

/** Back office listening for new events: the seqs it heard, and next() resolves at the next one heard. */
async function backOfficeListening() {
  const seqs: number[] = [];
  let wake: (() => void) | undefined;
  const listener = await listen(team.db.urlFor(backOffice, team.password(backOffice)), (seq) => {
    seqs.push(seq);
    wake?.();
  });
  const next = () => new Promise<void>((resolve) => (wake = resolve));
  return { seqs, listener, next };
}

describe('listen', () => {
  it('wakes a listener with the new seq when another desktop commits', async () => {
    const { seqs, listener, next } = await backOfficeListening();
    try {
      const woken = next();
      const { stored } = await appendEvents(team.signIn(support), [event(), event()]);
      await woken;
      // One notification per statement, carrying its highest seq.
      expect(seqs).toEqual([stored[1]!.seq]);

      // Nothing is announced before commit, and nothing for a rolled-back write.
      const c = new pg.Client({ connectionString: team.db.urlFor(support, team.password(support)) });
      await c.connect();
      await c.query('BEGIN');
      await appendEvents(c, [event()]);
      await new Promise((r) => setTimeout(r, 200));
      expect(seqs).toHaveLength(1);
      await c.query('ROLLBACK');
      await c.end();
      await new Promise((r) => setTimeout(r, 200));
      expect(seqs).toHaveLength(1);
    } finally {
      await listener.close();
    }
  });
});

describe('listen, held while a pull is due', () => {
  it('hears no new events while held, and the next commit once resumed', async () => {
    const { seqs, listener, next } = await backOfficeListening();
    try {
      listener.hold();
      await appendEvents(team.signIn(support), [event()]);
      await new Promise((r) => setTimeout(r, 300));
      expect(seqs).toEqual([]); // the pull that is due reads it
      await listener.resume();
      const woken = next();
      const { stored } = await appendEvents(team.signIn(support), [event()]);
      await woken;
      expect(seqs).toEqual([stored[0]!.seq]);
    } finally {
      await listener.close();
    }
  });
});

describe('listen, when the connection drops', () => {
  it('reports it through onError so the caller listens again and pulls', async () => {
    const errors: Error[] = [];
    let reported: (() => void) | undefined;
    const listener = await listen(team.db.urlFor(backOffice, team.password(backOffice)), () => undefined, {
      onError: (e) => {
        errors.push(e);
        reported?.();
      },
    });
    try {
      const done = new Promise<void>((resolve) => (reported = resolve));
      await team.owner.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND application_name = 'merchant-desk listen'`,
        [backOffice],
      );
      await done;
      expect(errors[0]).toBeInstanceOf(TeamUnavailableError);
      expect(errors[0]!.message).toMatch(/^the team database cannot be reached .*could not listen for new events$/);
    } finally {
      await listener.close();
    }
  });
});

describe('append-only', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of history, even to the owner', async () => {
    const { stored } = await appendEvents(team.signIn(support), [event()]);
    const seq = stored[0]!.seq;
    await team.owner.query(
      `INSERT INTO team.intents (merchant_reference, amount_minor, currency, description) VALUES ('MD-AO-1', 1, 'NGN', '')`,
    );
    await team.owner
      .query(`INSERT INTO team.balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
      VALUES (now(), 'NGN', 'COLLECTION', 1, 1, 0, 0)`);
    for (const sql of [
      `UPDATE team.events SET status = 'COMPLETED' WHERE seq = ${seq}`,
      `DELETE FROM team.events WHERE seq = ${seq}`,
      'TRUNCATE team.events',
      `UPDATE team.intents SET amount_minor = 1`,
      'DELETE FROM team.intents',
      'TRUNCATE team.intents',
      'UPDATE team.balance_snapshots SET available_minor = 0',
      'DELETE FROM team.balance_snapshots',
      'TRUNCATE team.balance_snapshots',
    ]) {
      await expect(team.owner.query(sql), sql).rejects.toThrow(/is append-only: (UPDATE|DELETE|TRUNCATE) refused/);
    }
    // An operator has no such grant at all.
    const asSupport = team.signIn(support);
    await expect(asSupport.query(`UPDATE team.events SET note = 'x' WHERE seq = ${seq}`)).rejects.toThrow(
      /permission denied/,
    );
    await expect(asSupport.query(`DELETE FROM team.events WHERE seq = ${seq}`)).rejects.toThrow(/permission denied/);
    expect((await pullSince(team.owner, seq - 1, 1)).events[0]).toMatchObject({ seq, status: 'PENDING' });
  });

  it('an UPSERT cannot rewrite an event either', async () => {
    const e = event();
    await appendEvents(team.owner, [e]);
    await expect(
      team.owner.query(
        `INSERT INTO team.events (event_key, merchant_reference, source, kind, signature, occurred_at)
         VALUES ($1, 'X', 'manual', 'resolution', 'not_applicable', now()) ON CONFLICT (event_key) DO UPDATE SET kind = 'resolution'`,
        [e.eventKey],
      ),
    ).rejects.toThrow(/append-only: UPDATE refused/);
  });

  it('a support login gets a permission error, not a crash, for a write it may not make', async () => {
    await expect(appendEvents(team.signIn(support), [event({ source: 'callback' })])).rejects.toThrow(
      TeamPermissionError,
    );
  });
});
