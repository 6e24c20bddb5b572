// Applying a pulled batch to SQLite: all of it with its seq, or none of it, so a crash or a failure
// mid-batch never skips nor repeats an event.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import type { TeamEvent } from '../../main/team/events.js';
import { applyEvents } from '../../main/team/sync/apply.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { tempDir } from '../support/tmp.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let db: Db | undefined;
afterEach(() => db?.close());

function teamEvent(seq: number, over: Partial<TeamEvent> = {}): TeamEvent {
  return {
    seq,
    eventKey: `intent:MD-APPLY-${seq}`,
    merchantReference: `MD-APPLY-${seq}`,
    internalReference: null,
    source: 'intent',
    kind: 'intent',
    status: 'INTENT',
    amountMinor: 5000,
    currency: 'KES',
    signature: 'not_applicable',
    payload: JSON.stringify({ description: 'Phone order', createdAt: 1_763_000_000_000, operator: 'Ann' }),
    evidence: null,
    note: null,
    paymentUrl: null,
    statusMessage: null,
    occurredAt: 1_763_000_000_100,
    recordedAt: 1_763_000_000_200,
    actor: 'support_1',
    ...over,
  };
}

const count = (table: string) => db!.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe('applyEvents', () => {
  it('stores a batch and its seq together, or neither', () => {
    db = openDatabase(path.join(tempDir(), 'desk.sqlite'));
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON collection_events WHEN NEW.dedupe_key = 'intent:MD-APPLY-2'
             BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
    const batch = [teamEvent(1), teamEvent(2)];
    expect(() => applyEvents(db!, batch, 2, 1, { ledger })).toThrow(/disk trouble/);
    expect(lastSeq(db, 'events')).toBe(0);
    expect([count('collections'), count('collection_events'), count('reconciliation')]).toEqual([0, 0, 0]);

    db.exec('DROP TRIGGER refuse');
    expect(applyEvents(db, batch, 2, 1, { ledger }).applied).toBe(2);
    expect(lastSeq(db, 'events')).toBe(2);
    expect([count('collections'), count('collection_events'), count('reconciliation')]).toEqual([2, 2, 2]);
    // The same batch again (a pull repeated after a lost answer) stores nothing.
    expect(applyEvents(db, batch, 2, 1, { ledger })).toEqual({ applied: 0, changed: [], orphans: 0 });
    expect(count('collection_events')).toBe(2);
  });

  it("creates the collection of an intent from its payload (its operator the actor PostgreSQL recorded, not the payload's), and keeps an unknown reference an orphan", () => {
    db = openDatabase(path.join(tempDir(), 'desk.sqlite'));
    const r = applyEvents(
      db,
      [
        teamEvent(1),
        teamEvent(2, {
          eventKey: 'callback:MD-NOBODY:x',
          merchantReference: 'MD-NOBODY',
          source: 'callback',
          kind: 'outcome',
          status: 'COMPLETED',
          signature: 'verified',
          payload: '{}',
        }),
      ],
      2,
      1,
      { ledger },
    );
    expect(r.changed).toEqual([{ id: expect.any(Number), reference: 'MD-APPLY-1', status: 'INTENT' }]);
    expect(db.prepare('SELECT created_at, operator, amount_minor, currency FROM collections').get()).toEqual({
      created_at: 1_763_000_000_000,
      operator: 'support_1',
      amount_minor: 5000,
      currency: 'KES',
    });
    expect(
      db.prepare("SELECT collection_id FROM collection_events WHERE merchant_reference = 'MD-NOBODY'").pluck().get(),
    ).toBeNull();
  });
});
