// Found by the team day's failover (issue 38): after the record went back in time, a desk's outbox must not
// reach the record before the desk has looked at it. A desk whose intent the record lost, with that
// payment's answer still in its outbox (stored while it was cut off, or left by a kill -9), signed in again
// on the restored record: the push went as soon as the database was found to be the team's, before the pull
// found the rollback and put the intent back, so the record held the answer before its intent and a
// colleague's fresh copy showed the payment without it (the answer an orphan, the payment never closed).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { dump, restoreAsSameName, suffix } from '../support/pg-replication.js';
import { copyOf, pendingOf, waitUntil, witnessDesk, type WitnessDesk } from './witness-desk.js';

let tdb: TestDatabase;
let dir: string;
const keys = { signingKey: crypto.randomBytes(24).toString('hex'), servicePublicKey: null };
const logins = {} as Record<'a' | 'e', { login: string; password: string }>;
const desks: WitnessDesk[] = [];
let reader: pg.Pool;

const urlFor = (who: keyof typeof logins) => tdb.urlFor(logins[who].login, logins[who].password);
const newestSeq = async () =>
  Number((await reader.query<{ m: string | null }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m ?? 0);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-push-order-'));
  tdb = await createTestDatabase();
  const owner = openTeamPool(tdb.adminUrl);
  await migrate(owner);
  const s = suffix();
  for (const [who, role] of [
    ['a', 'support'],
    ['e', 'finance'],
  ] as const) {
    const login = `${who}_${s}`;
    const password = `pw-${crypto.randomBytes(9).toString('hex')}`;
    await addOperator({ pool: owner }, { login, role, password, displayName: `desk ${who}` });
    logins[who] = { login, password };
  }
  await owner.end();
  reader = openTeamPool(tdb.adminUrl, { onIdleError: () => undefined });
}, 60_000);

afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await reader?.end().catch(() => undefined);
  await tdb?.drop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a desk signing in on a record that lost its intent, with the answer still in its outbox', () => {
  it('puts the intent back before it sends the answer: the record keeps their order and a fresh copy equals the desk', async () => {
    const a = witnessDesk({ url: urlFor('a'), login: logins.a.login, role: 'support', keys });
    desks.push(a);
    a.open();
    await a.charge();
    await waitUntil(async () => a.status().lastSeq >= (await newestSeq()) && pendingOf(a) === 0, 15_000, 'synced');
    const backup = path.join(dir, 'team.dump');
    await dump(tdb.server, tdb.name, backup);

    // After the backup: a charge the record takes (and a pulls), then the desk goes away before the
    // window's closing reaches the record.
    const late = await a.charge();
    await waitUntil(async () => a.status().lastSeq >= (await newestSeq()) && pendingOf(a) === 0, 15_000, 'synced');
    await a.shut();
    a.closeWindow(late);
    expect(pendingOf(a)).toBe(1);

    await restoreAsSameName(tdb.server, tdb.name, backup);
    a.open();
    await waitUntil(() => a.status().rollback?.phase === 'rebased' && pendingOf(a) === 0, 30_000, 'a put right');

    const order = (
      await reader.query<{ kind: string }>('SELECT kind FROM team.events WHERE merchant_reference = $1 ORDER BY seq', [
        late.merchantReference,
      ])
    ).rows.map((r) => r.kind);
    expect(order.indexOf('intent')).toBe(0);
    expect(order).toContain('window_closed');

    const fresh = witnessDesk({ url: urlFor('e'), login: logins.e.login, role: 'finance', keys });
    desks.push(fresh);
    fresh.open();
    await waitUntil(async () => fresh.status().lastSeq >= (await newestSeq()), 15_000, 'the fresh desk');
    await waitUntil(async () => a.status().lastSeq >= (await newestSeq()), 15_000, 'a on the head');
    expect(copyOf(a.db)).toEqual(copyOf(fresh.db));
  }, 120_000);
});
