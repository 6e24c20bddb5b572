// A team desk records an import's events in the team database before it imports the file (the
// collections.import handler: eventsOfImport, then recordTeamFirst). A callback whose signatures verify
// but whose currency is unreadable is kept by serve with the currency left out and said in the note (the
// team log holds only 3-letter codes); the same callback in an import file must be recorded the same
// way, not refuse the whole import.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfImport } from '../../main/callbacks/import-jsonl.js';
import { verifyCallback } from '../../main/callbacks/ingest.js';
import { recordEvents, recordTeamFirst } from '../../main/team/record.js';
import { importCallbacks } from '../../main/operations/import-callbacks.js';
import { systemClock } from '../../main/clock.js';
import { testLedger } from '../support/ledger.js';
import { openDesk, type Desk } from './sync-desk.js';
import { teamCallbackEvent } from '../../main/serve/team-callback-store.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { teamFixture, type TeamFixture } from './fixture.js';

const clock = { now: () => 1_790_000_000_000 };
const keys = { signingKey: SIGNING_KEY };

let team: TeamFixture;
const desks: Desk[] = [];
beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await team?.close();
});

describe("an import's events in the team database", () => {
  it('a verified callback with an unreadable currency is recorded as serve stores it: currency left out, said in the note', async () => {
    const pool = team.signIn(await team.addOperator('back_office'));
    const body = callbackBody('MD-CUR-00000001', 'COMPLETED', { request_currency: 'shillings' });
    const headers = { 'hmac-signature': hmacHeader(body) };
    const evs = await eventsOfImport(Readable.from([JSON.stringify({ headers, body }) + '\n']), { keys, clock });
    expect(evs).toHaveLength(1);

    await recordEvents(
      pool,
      evs.map((l) => l.event),
    );

    const stored = (
      await team.owner.query('SELECT status, amount_minor, currency, note FROM team.events WHERE event_key = $1', [
        evs[0]!.event.dedupeKey,
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

describe('an import on a team desk whose sync is quick', () => {
  it("counts what it recorded as imported even when the sync stored the team's copy first", async () => {
    const pool = team.signIn(await team.addOperator('back_office'));
    const desk = openDesk(pool);
    desks.push(desk);
    const { ledger } = testLedger();
    const line = (ref: string) => {
      const body = callbackBody(ref, 'COMPLETED');
      return JSON.stringify({ headers: { 'hmac-signature': hmacHeader(body) }, body }) + '\n';
    };
    // The desk's sync pulls the team's copy between the team write and the local store (a NOTIFY
    // answered at once does this on a busy team): here, every time.
    const team1 = {
      recordFirst: async (evs: Parameters<typeof recordTeamFirst>[1]) => {
        const recorded = await recordTeamFirst(pool, evs);
        await desk.sync.pullNow();
        return recorded;
      },
    };
    const deps = { db: desk.db, clock: systemClock, ledger, keys, team: team1 };
    const first = await importCallbacks(deps, { text: line('MD-QUICK-1') + line('MD-QUICK-2') });
    expect(first).toMatchObject({ lines: 2, imported: 2, duplicates: 0, orphans: 2 });
    // The same file again: the team held both already, so both are duplicates.
    const again = await importCallbacks(deps, { text: line('MD-QUICK-1') + line('MD-QUICK-2') });
    expect(again).toMatchObject({ lines: 2, imported: 0, duplicates: 2 });
    // Stored once each on the desk.
    expect(
      desk.db
        .prepare("SELECT COUNT(*) FROM collection_events WHERE merchant_reference LIKE 'MD-QUICK-%'")
        .pluck()
        .get(),
    ).toBe(2);
  });
});
