// serve's login (group receiver, migration 4) writes callback events but reads no reference: not the
// event keys (which hold the merchant reference), not the reference columns. Its duplicate check asks
// the database yes or no for a key it already holds. Checked through pg directly as a receiver login.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../main/callbacks/callback-store.js';
import { teamCallbackStore } from '../../main/serve/team-callback-store.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';
import { appendEvents } from '../../main/team/events.js';

let team: TeamFixture;
let receiver: string;
let rx: pg.Client;

beforeAll(async () => {
  team = await teamFixture();
  receiver = await team.addOperator('receiver');
  rx = new pg.Client({ connectionString: team.db.urlFor(receiver, team.password(receiver)) });
  await rx.connect();
});
afterAll(async () => {
  await rx?.end().catch(() => undefined);
  await team?.close();
});

/** The SQL of a pool.query call: its text, given alone or in a query config. */
const sqlOf = (q: unknown): string | undefined =>
  typeof q === 'string' ? q : typeof q === 'object' && q !== null && 'text' in q ? String(q.text) : undefined;

/** The elements of a one-dimensional text[] in PostgreSQL's binary format (store/pg/text-arrays.ts). */
function binaryTextArrayValues(b: Buffer): (string | null)[] {
  const count = b.readInt32BE(12);
  const out: (string | null)[] = [];
  for (let i = 0, at = 20; i < count; i++) {
    const n = b.readInt32BE(at);
    at += 4;
    out.push(n < 0 ? null : b.toString('utf8', at, at + n));
    at += Math.max(n, 0);
  }
  return out;
}

const delivery = (reference: string, status = 'COMPLETED'): Delivery => {
  const body = callbackBody(reference, status);
  return {
    input: {
      body: Buffer.from(JSON.stringify(body)),
      headers: { 'hmac-signature': hmacHeader(body) },
      source: 'callback',
    },
    now: Date.now(),
  };
};

describe("serve's receiver login", () => {
  it('cannot read an event key or a reference, even of the callbacks it wrote', async () => {
    const store = teamCallbackStore(team.signIn(receiver));
    await store.commitGroup([delivery('MD-RX-SECRET-1')], { signingKey: SIGNING_KEY });
    for (const column of ['event_key', 'merchant_reference', 'internal_reference', 'payload', 'note', '*']) {
      await expect(rx.query(`SELECT ${column} FROM team.events`)).rejects.toMatchObject({ code: '42501' });
    }
    await expect(rx.query(`SELECT count(*) FROM team.events WHERE event_key LIKE 'callback:%'`)).rejects.toMatchObject({
      code: '42501',
    });
    await expect(rx.query('SELECT * FROM team.intents')).rejects.toMatchObject({ code: '42501' });
  });

  it('asks yes or no for keys it holds, and no one else may ask', async () => {
    await appendEvents(team.signIn(await team.addOperator('back_office')), [
      event({ eventKey: 'rx-known-key', source: 'callback', signature: 'verified' }),
    ]);
    const r = await rx.query('SELECT team.events_stored($1::text[]) AS stored', [['rx-known-key', 'rx-unknown-key']]);
    expect(r.rows[0].stored).toEqual([true, false]);
    const fin = team.signIn(await team.addOperator('finance'));
    await expect(fin.query(`SELECT team.events_stored(ARRAY['rx-known-key'])`)).rejects.toMatchObject({
      code: '42501',
    });
  });

  it('stores each callback once, and says which were duplicates', async () => {
    const store = teamCallbackStore(team.signIn(receiver));
    const keys = { signingKey: SIGNING_KEY };
    const first = await store.commitGroup([delivery('MD-RX-1'), delivery('MD-RX-2'), delivery('MD-RX-1')], keys);
    expect(first.map((o) => o.result)).toEqual(['imported', 'imported', 'duplicate']);
    const again = await store.commitGroup([delivery('MD-RX-2'), delivery('MD-RX-3')], keys);
    expect(again.map((o) => o.result)).toEqual(['duplicate', 'imported']);
    const rows = await team.owner.query<{ merchant_reference: string; seq: string }>(
      `SELECT merchant_reference, seq FROM team.events WHERE merchant_reference LIKE 'MD-RX-_' ORDER BY seq`,
    );
    expect(rows.rows.map((r) => r.merchant_reference)).toEqual(['MD-RX-1', 'MD-RX-2', 'MD-RX-3']);
    // The seq each imported outcome reports is the row's.
    const imported = [...first, ...again].filter((o) => o.result === 'imported');
    expect(imported.map((o) => o.eventId)).toEqual(rows.rows.map((r) => Number(r.seq)));
  });

  it('stores a group in one statement: one round trip and one commit, the duplicate question inside it', async () => {
    const pool = team.signIn(receiver);
    const store = teamCallbackStore(pool);
    const sent: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
      const text = sqlOf(args[0]);
      if (text !== undefined) sent.push(text);
      return query(...args);
    };
    await store.commitGroup([delivery('MD-RX-ONE-1')], { signingKey: SIGNING_KEY });
    sent.length = 0;
    const outcomes = await store.commitGroup(
      [delivery('MD-RX-ONE-1'), delivery('MD-RX-ONE-2'), delivery('MD-RX-ONE-3')],
      { signingKey: SIGNING_KEY },
    );
    expect(outcomes.map((o) => o.result)).toEqual(['duplicate', 'imported', 'imported']);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/team\.callback_keys[\s\S]*INSERT INTO team\.events/);
  });

  it('a key another writer stores after its statement began and before its write turn: judged after it, stored once', async () => {
    const pool = team.signIn(receiver);
    const store = teamCallbackStore(pool);
    const keys = { signingKey: SIGNING_KEY };
    const backOffice = team.signIn(await team.addOperator('back_office'));
    // Injected race: a desk's transaction holds the events' write turn with MD-RX-RACE-2's callback in it (the
    // same callback, imported) when the receiver's statement starts, and commits once that statement waits
    // for the turn. The statement's question (team.callback_keys) takes the turn first and then reads what
    // committed: the desk's row, whose status is the delivery's own, so a repeat (team migration 18).
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    let raced = false;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args) => {
      if (raced || !sqlOf(args[0])?.includes('INSERT INTO team.events')) return query(...args);
      raced = true;
      // The group's columns, each a binary text[] parameter: $1 the keys, $2 the references.
      const params = (typeof args[0] === 'string' ? args[1] : (args[0] as { values: unknown }).values) as Buffer[];
      const [keysSent, referencesSent] = params.map(binaryTextArrayValues);
      const theirs = { event_key: keysSent![referencesSent!.indexOf('MD-RX-RACE-2')]! };
      const desk = await backOffice.connect();
      try {
        await desk.query('BEGIN');
        await appendEvents(desk, [
          event({
            eventKey: theirs.event_key,
            merchantReference: 'MD-RX-RACE-2',
            source: 'import',
            status: 'COMPLETED',
            signature: 'verified',
          }),
        ]);
        const mine = query(...args);
        mine.catch(() => undefined);
        for (let i = 0; i < 200; i++) {
          const waiting = await team.owner.query(
            `SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`,
            [receiver],
          );
          if (waiting.rowCount) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await desk.query('COMMIT');
        return await mine;
      } finally {
        desk.release();
      }
    };
    const outcomes = await store.commitGroup(
      [delivery('MD-RX-RACE-1'), delivery('MD-RX-RACE-2'), delivery('MD-RX-RACE-3')],
      keys,
    );
    expect(raced).toBe(true);
    expect(outcomes.map((o) => o.result)).toEqual(['imported', 'duplicate', 'imported']);
    const rows = await team.owner.query<{ merchant_reference: string; n: string }>(
      `SELECT merchant_reference, count(*) AS n FROM team.events WHERE merchant_reference LIKE 'MD-RX-RACE-%'
       GROUP BY 1 ORDER BY 1`,
    );
    expect(rows.rows.map((r) => [r.merchant_reference, Number(r.n)])).toEqual([
      ['MD-RX-RACE-1', 1],
      ['MD-RX-RACE-2', 1],
      ['MD-RX-RACE-3', 1],
    ]);
  });
});
