// A team desk records an import's events in the team database before it imports the file (the
// collections.import handler: eventsOfImport, then recordTeamFirst). A callback whose signatures verify
// but whose currency is unreadable is kept by serve with the currency left out and said in the note (the
// team log holds only 3-letter codes); the same callback in an import file must be recorded the same
// way, not refuse the whole import.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfImport } from '../../main/callbacks/import-jsonl.js';
import { verifyCallback } from '../../main/callbacks/ingest.js';
import { recordEvents } from '../../main/team/record.js';
import { teamCallbackEvent } from '../../main/serve/team-callback-store.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { teamFixture, type TeamFixture } from './fixture.js';

const clock = { now: () => 1_790_000_000_000 };
const keys = { signingKey: SIGNING_KEY };

let team: TeamFixture;
beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  await team?.close();
});

describe("an import's events in the team database", () => {
  it('a verified callback with an unreadable currency is recorded as serve stores it: currency left out, said in the note', async () => {
    const pool = team.signIn(await team.addOperator('back_office'));
    const body = callbackBody('MD-CUR-00000001', 'COMPLETED', { request_currency: 'shillings' });
    const headers = { 'hmac-signature': hmacHeader(body) };
    const evs = await eventsOfImport(Readable.from([JSON.stringify({ headers, body }) + '\n']), { keys, clock });
    expect(evs).toHaveLength(1);

    await recordEvents(pool, evs);

    const stored = (
      await team.owner.query('SELECT status, amount_minor, currency, note FROM team.events WHERE event_key = $1', [
        evs[0]!.dedupeKey,
      ])
    ).rows;
    const v = verifyCallback({ body, headers, source: 'callback' }, keys);
    if (v.result !== 'verified') throw new Error('the test callback must verify');
    const asServe = teamCallbackEvent(v.callback, clock.now());
    expect(stored).toEqual([
      {
        status: 'COMPLETED',
        amount_minor: asServe.amountMinor === null ? null : String(asServe.amountMinor),
        currency: null,
        note: asServe.note,
      },
    ]);
    expect(asServe.note).toContain('currency as sent: shillings');
  });
});
