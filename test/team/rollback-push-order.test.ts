// Found by the team day's failover (issue 38): after the record went back in time, a desk's outbox must not
// reach the record before the desk has looked at it. A desk whose intent the record lost, with that
// payment's answer still in its outbox (stored while it was cut off, or left by a kill -9), signed in again
// on the restored record: the push went as soon as the database was found to be the team's, before the pull
// found the rollback and put the intent back, so the record held the answer before its intent and a
// colleague's fresh copy showed the payment without it (the answer an orphan, the payment never closed).
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTeamPool } from '../../main/team/pool.js';
import { dump, restoreAsSameName } from '../support/pg-replication.js';
import { fileTempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';
import { copyOf, pendingOf } from './witness-desk.js';
import { newestSeq, restoreTeam, synced } from './rollback-team.js';

let team: Awaited<ReturnType<typeof restoreTeam<'a' | 'e'>>>;
let dir: string;
let reader: pg.Pool;

beforeAll(async () => {
  dir = fileTempDir('md-push-order-');
  team = await restoreTeam({ a: 'support', e: 'finance' });
  reader = team.keep(openTeamPool(team.tdb.adminUrl, { onIdleError: () => undefined }));
}, 60_000);

afterAll(() => team?.close());

describe('a desk signing in on a record that lost its intent, with the answer still in its outbox', () => {
  it('puts the intent back before it sends the answer: the record keeps their order and a fresh copy equals the desk', async () => {
    const a = team.desk('a');
    a.open();
    await a.charge();
    await until('synced', () => synced(reader, a), 15_000);
    const backup = path.join(dir, 'team.dump');
    await dump(team.tdb.server, team.tdb.name, backup);

    // After the backup: a charge the record takes (and a pulls), then the desk goes away before the
    // window's closing reaches the record.
    const late = await a.charge();
    await until('synced', () => synced(reader, a), 15_000);
    await a.shut();
    a.closeWindow(late);
    expect(pendingOf(a)).toBe(1);

    await restoreAsSameName(team.tdb.server, team.tdb.name, backup);
    a.open();
    await until('a put right', () => a.status().rollback?.phase === 'rebased' && pendingOf(a) === 0, 30_000);

    const order = (
      await reader.query<{ kind: string }>('SELECT kind FROM team.events WHERE merchant_reference = $1 ORDER BY seq', [
        late.merchantReference,
      ])
    ).rows.map((r) => r.kind);
    expect(order.indexOf('intent')).toBe(0);
    expect(order).toContain('window_closed');

    const fresh = team.desk('e');
    fresh.open();
    await until('the fresh desk', async () => fresh.status().lastSeq >= (await newestSeq(reader)), 15_000);
    await until('a on the head', async () => a.status().lastSeq >= (await newestSeq(reader)), 15_000);
    expect(copyOf(a.db)).toEqual(copyOf(fresh.db));
  }, 120_000);
});
