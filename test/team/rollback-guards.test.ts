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
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { serverUrl, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import {
  crash,
  cutReplication,
  promote,
  startPrimary,
  startStandby,
  suffix,
  waitReplayed,
} from '../support/pg-replication.js';
import { startProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { pendingOf, recordKeys, waitUntil, witnessDesk, type WitnessDesk } from './witness-desk.js';

const DB = 'team';
const CARD = '4242424242424242';
let primary: PgServerInfo;
let standby: PgServerInfo;
let proxy: TcpProxy;
const keys = { signingKey: crypto.randomBytes(24).toString('hex'), servicePublicKey: null };
const logins = {} as Record<'a' | 'c', { login: string; password: string }>;
const desks: WitnessDesk[] = [];
const pools: pg.Pool[] = [];

const urlFor = (who: keyof typeof logins) =>
  `postgres://${logins[who].login}:${logins[who].password}@127.0.0.1:${proxy.port}/${DB}`;

beforeAll(async () => {
  primary = await startPrimary();
  const admin = new pg.Client({ connectionString: serverUrl(primary, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const owner = openTeamPool(serverUrl(primary, DB));
  await migrate(owner);
  const s = suffix();
  for (const who of ['a', 'c'] as const) {
    const login = `${who}_${s}`;
    const password = `pw-${crypto.randomBytes(9).toString('hex')}`;
    await addOperator({ pool: owner }, { login, role: 'support', password, displayName: `desk ${who}` });
    logins[who] = { login, password };
  }
  await owner.end();
  standby = await startStandby(primary);
  proxy = await startProxy(primary.port);
}, 120_000);

afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  await proxy?.close();
  if (primary) stopServerSync(primary.dir, primary.binDir);
  if (standby) stopServerSync(standby.dir, standby.binDir);
});

const newestSeq = async (p: pg.Pool) =>
  Number((await p.query<{ m: string | null }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m ?? 0);
const synced = async (d: WitnessDesk, p: pg.Pool) => d.status().lastSeq >= (await newestSeq(p)) && pendingOf(d) === 0;

describe('a card charged in the tail a failover lost', () => {
  it('is asked about when charged again at another desk within the window, once the desk that charged it put it back', async () => {
    const a = witnessDesk({ url: urlFor('a'), login: logins.a.login, role: 'support', keys });
    const c = witnessDesk({ url: urlFor('c'), login: logins.c.login, role: 'support', keys });
    desks.push(a, c);
    a.open();
    c.open();
    const reader = openTeamPool(serverUrl(primary, DB), { onIdleError: () => undefined });
    pools.push(reader);

    // Before the cut: a charge of another card, on the standby too (the point both records share).
    expect((await a.chargeCard('5555555555554444', 120_000)).said.kind).toBe('recorded');
    await waitUntil(async () => (await synced(a, reader)) && (await synced(c, reader)), 15_000, 'desks synced');
    await waitReplayed(primary, standby);

    // After the cut: the card charged at a; every desk pulls it; the standby never gets it.
    await cutReplication(standby);
    const first = await a.chargeCard(CARD, 150_050);
    expect(first.said.kind).toBe('recorded');
    const chargedBefore = Date.now();
    await waitUntil(async () => (await synced(a, reader)) && (await synced(c, reader)), 15_000, 'desks synced');
    await reader.end();
    pools.length = 0;

    // The failover: the primary stops hard, the standby is promoted, the host name points at it.
    await crash(primary);
    await promote(standby);
    proxy.repoint(standby.port);
    const record = openTeamPool(serverUrl(standby, DB), { onIdleError: () => undefined });
    pools.push(record);
    const intentKey = `intent:${first.intent.merchantReference}`;
    await waitUntil(async () => (await recordKeys(record)).has(intentKey), 30_000, 'a to put its intent back');
    await waitUntil(() => a.status().rollback?.phase === 'rebased', 30_000, 'a to re-base');

    // The same card and amount at c, within the window: asked, naming a and the time a charged it.
    const again = await c.chargeCard(CARD, 150_050);
    expect(again.said).toMatchObject({ kind: 'repeat', chargedBy: logins.a.login });
    const at = (again.said as { chargedAt: number }).chargedAt;
    expect(at).toBeLessThanOrEqual(chargedBefore + 1_000);
    expect(at).toBeGreaterThan(chargedBefore - 60_000);
    // Asked, nothing of c's charge is recorded until the person says yes.
    const intents = await record.query('SELECT 1 FROM team.intents WHERE created_by = $1', [logins.c.login]);
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
