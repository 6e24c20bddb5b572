// Found by the team day's failover (issue 38, seed 4): a card charged at one desk in the tail an asynchronous
// failover lost was charged again, same card and amount, at another desk a minute later, and nobody was
// asked "Charge this card again?". The desks put the lost intent back (team.restore_events), but not its
// guard fingerprint (team.charge_guards, migration 12): the promoted record had no memory of the card.
//
// Against real servers on loopback, as rollback-failover.test.ts: a primary and its asynchronous standby,
// replication cut, a charge through the app's charge seam (operations/charge.ts, the card's keyed
// fingerprint under the team's guards), the primary stopped hard, the standby promoted and the one host
// name repointed at it. The desk that charged puts its intent back; then the same card and amount at
// another desk is asked about, naming who charged it and when (before the failover, not at the restore).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTeamPool } from '../../main/team/pool.js';
import { serverUrl } from '../support/postgres-server.js';
import { crash, cutReplication, promote, waitReplayed } from '../support/pg-replication.js';
import { until } from '../support/wait.js';
import { recordKeys } from './witness-desk.js';
import { FAILOVER_DB, failoverTeam, synced } from './rollback-team.js';

const CARD = '4242424242424242';
let team: Awaited<ReturnType<typeof failoverTeam<'a' | 'c'>>>;

beforeAll(async () => {
  team = await failoverTeam({ a: 'support', c: 'support' });
}, 120_000);

afterAll(() => team?.close());

describe('a card charged in the tail a failover lost', () => {
  it('is asked about when charged again at another desk within the window, once the desk that charged it put it back', async () => {
    const a = team.desk('a');
    const c = team.desk('c');
    a.open();
    c.open();
    const reader = team.keep(openTeamPool(serverUrl(team.primary, FAILOVER_DB), { onIdleError: () => undefined }));

    // Before the cut: a charge of another card, on the standby too (the point both records share).
    expect((await a.chargeCard('5555555555554444', 120_000)).said.kind).toBe('recorded');
    await until('desks synced', () => synced(reader, a, c), 15_000);
    await waitReplayed(team.primary, team.standby);

    // After the cut: the card charged at a; every desk pulls it; the standby never gets it.
    await cutReplication(team.standby);
    const first = await a.chargeCard(CARD, 150_050);
    expect(first.said.kind).toBe('recorded');
    const chargedBefore = Date.now();
    await until('desks synced', () => synced(reader, a, c), 15_000);
    await reader.end();

    // The failover: the primary stops hard, the standby is promoted, the host name points at it.
    await crash(team.primary);
    await promote(team.standby);
    team.proxy.repoint(team.standby.port);
    const record = team.keep(openTeamPool(serverUrl(team.standby, FAILOVER_DB), { onIdleError: () => undefined }));
    const intentKey = `intent:${first.intent.merchantReference}`;
    await until('a to put its intent back', async () => (await recordKeys(record)).has(intentKey), 30_000);
    await until('a to re-base', () => a.status().rollback?.phase === 'rebased', 30_000);

    // The same card and amount at c, within the window: asked, naming a and the time a charged it.
    const again = await c.chargeCard(CARD, 150_050);
    expect(again.said).toMatchObject({ kind: 'repeat', chargedBy: team.logins.a.login });
    const at = (again.said as { chargedAt: number }).chargedAt;
    expect(at).toBeLessThanOrEqual(chargedBefore + 1_000);
    expect(at).toBeGreaterThan(chargedBefore - 60_000);
    // Asked, nothing of c's charge is recorded until the person says yes.
    const intents = await record.query('SELECT 1 FROM team.intents WHERE created_by = $1', [team.logins.c.login]);
    expect(intents.rows).toHaveLength(0);

    // The fingerprint a kept for this never touched its disk: not in its SQLite file, nor its WAL.
    const fingerprints = await record.query<{ fingerprint: Buffer }>('SELECT fingerprint FROM team.charge_guards');
    expect(fingerprints.rows.length).toBeGreaterThan(0);
    const onDisk = [a.db.name, `${a.db.name}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f));
    for (const { fingerprint } of fingerprints.rows)
      for (const bytes of onDisk) {
        expect(bytes.includes(fingerprint)).toBe(false);
        expect(bytes.includes(Buffer.from(fingerprint.toString('hex')))).toBe(false);
      }
  }, 180_000);
});
