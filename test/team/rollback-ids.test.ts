// Found by the team day's failover (issue 38, DAY_FAILOVER=1 DAY_SEED=4): a charge in flight on a desk holds
// its collection by the desk's local id (the charge's progress, its window's closing, a resolution opened
// on the row). When the record went back in time, the re-base removed every reference the record changed
// and applied them again in seq order, and SQLite gave the freed ids out again in that order. A desk that
// had charged before its pull reached a colleague's earlier charge holds its ids in the other order, so
// after the re-base its charge's id named the colleague's payment: the window followed, and its closing was
// written on, another desk's payment.
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { collectionIdOf } from '../../main/store/sqlite/ledger/intent-rows.js';
import { getCollection } from '../../main/collections/query.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordIntent } from '../../main/team/record.js';
import { dump, restoreAsSameName } from '../support/pg-replication.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';
import { initializeAccepted, newIntent } from './sync-desk.js';
import { copyOf } from './witness-desk.js';
import { newestSeq, restoreTeam, synced } from './rollback-team.js';

let team: Awaited<ReturnType<typeof restoreTeam<'a' | 'b' | 'e'>>>;
let dir: string;
let reader: pg.Pool;
const { ledger } = testLedger();

beforeAll(async () => {
  dir = fileTempDir('md-rollback-ids-');
  team = await restoreTeam({ a: 'support', b: 'support', e: 'finance' });
  reader = team.keep(openTeamPool(team.tdb.adminUrl, { onIdleError: () => undefined }));
}, 60_000);

afterAll(() => team?.close());

describe('a charge in flight when the record goes back in time', () => {
  it("keeps naming its own payment after the re-base, never a colleague's", async () => {
    const a = team.desk('a');
    const b = team.desk('b');
    a.open();
    b.open();
    await a.charge();
    await until('synced', () => synced(reader, a, b), 15_000);
    const backup = path.join(dir, 'team.dump');
    await dump(team.tdb.server, team.tdb.name, backup);

    // b charges; a charges a moment later, before its pull has brought b's charge: the record holds b's
    // first, a's copy holds a's first.
    await a.shut();
    const theirs = await b.charge();
    const mine = { ...newIntent({ currency: 'NGN', amountMinor: 150_050 }), operator: team.logins.a.login };
    await recordIntent(team.pool('a'), mine);
    const mineId = saveIntentCollection(ledger, a.db, mine);
    ledger.append(
      a.db,
      { ...initializeAccepted(mineId, mine.merchantReference), actor: team.logins.a.login },
      { outbox: true },
    );
    a.open();
    await until('synced', () => synced(reader, a, b), 15_000);
    const theirsId = collectionIdOf(a.db, theirs.merchantReference)!;
    expect(theirsId).toBeGreaterThan(mineId);

    // The team database is restored from the backup (both charges lost). b is back first and puts its
    // charge back; then a comes back, puts its own back after it and re-bases on that record.
    await a.shut();
    await restoreAsSameName(team.tdb.server, team.tdb.name, backup);
    const back = async (ref: string) =>
      (await reader.query('SELECT 1 FROM team.events WHERE merchant_reference = $1', [ref])).rowCount! > 0;
    await until('b put its charge back', () => back(theirs.merchantReference), 30_000);
    a.open();
    await until('a re-based', () => a.status().rollback?.phase === 'rebased', 30_000);
    await until('synced', async () => synced(reader, a, b), 30_000);

    // What a's charge in flight reads by its id, as its window follows it (charge/context.ts emit).
    expect(getCollection(a.db, mineId)?.collection.merchantReference).toBe(mine.merchantReference);
    expect(collectionIdOf(a.db, mine.merchantReference)).toBe(mineId);
    expect(collectionIdOf(a.db, theirs.merchantReference)).toBe(theirsId);

    // The window closes: written on a's own payment, and the desks still equal a fresh replay.
    a.closeWindow(mine);
    const fresh = team.desk('e');
    fresh.open();
    await until('the fresh desk', async () => fresh.status().lastSeq >= (await newestSeq(reader)), 15_000);
    await until('synced', () => synced(reader, a, b), 15_000);
    const closed = getCollection(a.db, mineId)!.events.map((e) => e.kind);
    expect(closed).toContain('window_closed');
    expect(getCollection(a.db, theirsId)!.events.map((e) => e.kind)).not.toContain('window_closed');
    expect(copyOf(a.db)).toEqual(copyOf(fresh.db));
    expect(copyOf(b.db)).toEqual(copyOf(fresh.db));
  }, 120_000);
});
