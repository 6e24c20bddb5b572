// Issue 28, problem 2: the charge guards hold across the team, decided by PostgreSQL (team migration 12),
// end to end on real parts: composeCore desks on team profiles, the sandbox over HTTP, a real PostgreSQL.
// - The repeat-charge question ("Charge this card again?") looks at every desk's charges: the card is
//   recognised across desks by a keyed fingerprint only (an HMAC under a key every desk of the team
//   derives from the merchant's secret key, which the database does not hold), never the card or a
//   plain hash of it; two desks pressing Charge at the same instant: exactly one is asked.
// - "Remaining today" is the team's, read from the team record, and the database refuses an intent that
//   would pass the option's daily limit, so two desks cannot both take the last of it.
// - A refusal before anything was sent names the role the database holds now (problem 5's refusal text).
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { composeCore, type Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { importServicePublicKey } from '../../main/settings/service-key.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { lockGate } from '../../main/ipc/lock-gate.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { setOperatorRole } from '../../main/operations/operators.js';
import { forgetTeamKeys, storeTeamKeys } from './team-keychain.js';
import { fileTempDir, tempDir } from '../support/tmp.js';
import { teamFixture, type TeamFixture } from '../team/fixture.js';
import { CARDS, allFileBytes, cardForm } from '../collections/harness.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-teamguards-${process.pid}`;

let team: TeamFixture;
let sb: Sandbox;
let sandboxDir: string;
let deskUrl: string;
const cores: Core[] = [];
const logins: string[] = [];

beforeAll(async () => {
  team = await teamFixture();
  sandboxDir = fileTempDir('md-team-guards-');
  sb = await startSandbox({ stateDir: sandboxDir, timeScale: 1 });
  deskUrl = `postgres://${team.db.server.host}:${team.db.server.port}/${team.db.name}`;
  await storeTeamKeys(sb);
}, 120_000);

afterEach(async () => {
  while (cores.length) await cores.pop()!.close();
  sb.controls.clearFaults();
});

afterAll(async () => {
  await forgetTeamKeys(deskUrl, logins);
  await sb?.close();
  await team?.close();
});

async function operator(role: 'support' | 'admin' = 'support'): Promise<string> {
  const login = await team.addOperator(role);
  logins.push(login);
  return login;
}

type Dispatch = ReturnType<typeof typedInvoke>;

/** A team desk signed in as `login`; `logs`: it writes its own log file (logs/ of its data folder). */
async function desk(login: string, o: { logs?: boolean } = {}): Promise<{ core: Core; d: Dispatch; dataDir: string }> {
  const dataDir = tempDir('md-team-guards-desk-');
  const db = openProfileDatabase(dataDir, 'team');
  try {
    updateSettings(db, { profile: 'team', baseUrl: sb.baseUrl, teamDatabaseUrl: deskUrl, teamLogin: login });
    importServicePublicKey(db, dataDir, sb.servicePublicKeyPem);
  } finally {
    db.close();
  }
  writeActiveProfile(dataDir, 'team');
  const core = await composeCore({
    dataDir,
    ...(o.logs ? {} : { logger: silentLogger() }),
    receiver: false,
    lock: { checkEveryMs: 0 },
    teamSyncEveryMs: 100,
    // No payment window: a charge answers once the service accepted it (PENDING).
  });
  cores.push(core);
  await core.ready();
  await core.lock.unlock(team.password(login));
  const d = typedInvoke(createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock)));
  return { core, d, dataDir };
}

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** Counts the initialize requests the sandbox receives from here on (each takes one 1 ms latency). */
function countInitialize(): () => number {
  sb.controls.clearFaults();
  sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: 1, times: 100 });
  return () => 100 - (sb.controls.state().faults.find((f) => f.route === 'initialize')?.remaining ?? 100);
}

/** An amount no other test of this file charges (the repeat question is per card and amount). */
let nextAmount = 31_000;
const freshAmount = () => String((nextAmount += 1_000));

describe('team-wide charge guards', () => {
  it('the same card and amount at another desk within minutes asks "Charge this card again?", naming who charged it; confirmed, it goes through as a new payment', async () => {
    const [ann, bob] = [await operator(), await operator()];
    const a = await desk(ann);
    const b = await desk(bob);
    const amount = freshAmount();

    const first = value(await a.d('payments.charge', cardForm(CARDS.approve, { amount })));
    expect(first.outcome.kind).toBe('pending');

    const sent = countInitialize();
    const second = value(await b.d('payments.charge', cardForm(CARDS.approve, { amount })));
    expect(second.outcome).toMatchObject({
      kind: 'needs_confirmation',
      message: expect.stringMatching(
        // When, as the time of day (the window says it in the person's time format).
        new RegExp(
          `^This card was charged UGX ${Number(amount).toLocaleString('en')} by ${ann} at \\d\\d:\\d\\d\\. Charge it again\\?$`,
        ),
      ),
    });
    expect(second.collection).toBeNull();
    expect(sent()).toBe(0); // nothing was sent
    // Another card, or another amount, is no repeat.
    expect(value(await b.d('payments.charge', cardForm(CARDS.decline, { amount }))).outcome.kind).toBe('pending');

    // Confirmed: a new intent under a new reference, recorded as a confirmed repeat.
    const token = (second.outcome as { token: string }).token;
    const confirmed = value(await b.d('payments.confirmRepeat', { token }));
    expect(confirmed.outcome.kind).toBe('pending');
    expect(confirmed.collection!.merchantReference).not.toBe(first.collection!.merchantReference);
    expect(sent()).toBe(2);

    // And the desk that charged first is asked too now: the newest charge of that card counts.
    const third = value(await a.d('payments.charge', cardForm(CARDS.approve, { amount })));
    expect(third.outcome).toMatchObject({
      kind: 'needs_confirmation',
      message: expect.stringContaining(`by ${bob} at`),
    });
    value(await a.d('payments.cancelRepeat', { token: (third.outcome as { token: string }).token }));
    expect(sent()).toBe(2);
  });

  it('two desks pressing Charge with the same card and amount at the same instant: exactly one is asked', async () => {
    const [ann, bob] = [await operator(), await operator()];
    const a = await desk(ann);
    const b = await desk(bob);
    for (let round = 0; round < 3; round++) {
      const amount = freshAmount();
      const sent = countInitialize();
      const both = await Promise.all([
        a.d('payments.charge', cardForm(CARDS.approve, { amount })),
        b.d('payments.charge', cardForm(CARDS.approve, { amount })),
      ]);
      const kinds = both.map((r) => value(r).outcome.kind).sort();
      expect(kinds).toEqual(['needs_confirmation', 'pending']);
      expect(sent()).toBe(1);
    }
  });

  it('"Remaining today" counts every desk\'s charges, from the team record, even while this desk\'s copy is behind', async () => {
    const [ann, bob] = [await operator(), await operator()];
    const a = await desk(ann);
    const b = await desk(bob);
    const kes = async (x: { d: Dispatch }) =>
      value(await x.d('payments.options', {})).find((o) => o.currency === 'KES')!;
    const before = await kes(b);

    // B's copy stops following the team: what it shows of today's total must still be the team's.
    await b.core.team()!.sync.close();
    value(await a.d('payments.charge', cardForm(CARDS.approve, { currency: 'KES', amount: '1000.00' })));
    const after = await kes(b);
    expect(after.collectedTodayMinor).toBe(before.collectedTodayMinor + 1000_00);
    expect(after.remainingTodayMinor).toBe(before.remainingTodayMinor - 1000_00);
    expect(after).toEqual(await kes(a));
  });

  it('the database refuses an intent that would pass the daily limit: two desks whose charges each fit alone, only one goes through', async () => {
    const [ann, bob] = [await operator(), await operator()];
    const a = await desk(ann);
    const b = await desk(bob);
    // USD: 5,000.00 at most per charge, 20,000.00 a day. 14,997.00 taken by A: 5,003.00 left.
    for (const amount of ['5000.00', '4999.00', '4998.00'])
      expect(
        value(await a.d('payments.charge', cardForm(CARDS.approve, { currency: 'USD', amount }))).outcome.kind,
      ).toBe('pending');
    // B's copy is behind, as a busy desk's can be for a moment: the database decides, not the copy.
    await b.core.team()!.sync.close();

    const sent = countInitialize();
    const both = await Promise.all([
      a.d('payments.charge', cardForm(CARDS.challenge, { currency: 'USD', amount: '5000.00' })),
      b.d('payments.charge', cardForm(CARDS.decline, { currency: 'USD', amount: '5000.00' })),
    ]);
    expect(sent()).toBe(1);
    const ok = both.filter((r) => r.ok);
    const refused = both.filter((r) => !r.ok);
    expect(ok).toHaveLength(1);
    expect(value(ok[0]!).outcome.kind).toBe('pending');
    expect(refused).toEqual([
      {
        ok: false,
        error: expect.objectContaining({
          kind: 'validation',
          field: 'amount',
          message: expect.stringMatching(/today's limit/),
        }),
      },
    ]);
    // The team's total is at 19,997.00: what is left is 3.00, on every desk.
    for (const x of [a, b])
      expect(value(await x.d('payments.options', {})).find((o) => o.currency === 'USD')).toMatchObject({
        collectedTodayMinor: 19_997_00,
        remainingTodayMinor: 3_00,
      });
  });

  it('a refusal before anything was sent names the role the database holds now', async () => {
    const sam = await operator();
    const s = await desk(sam);
    // An admin makes sam finance, and the announcement of it is lost (the fault injected: the trigger
    // that announces operator changes is off), so the desk still holds support when sam presses Charge.
    await team.owner.query('ALTER TABLE team.operators DISABLE TRIGGER operators_announce');
    let r;
    const sent = countInitialize();
    try {
      await setOperatorRole({ pool: team.owner }, sam, 'finance');
      r = await s.d('payments.charge', cardForm(CARDS.approve, { amount: freshAmount() }));
    } finally {
      await team.owner.query('ALTER TABLE team.operators ENABLE TRIGGER operators_announce');
    }
    expect(r).toMatchObject({
      ok: false,
      error: {
        kind: 'forbidden',
        message: `${sam} (finance) may not take payments: the team database refused the intent. Ask an admin for the support role.`,
      },
    });
    expect(sent()).toBe(0);
  });

  it('the card is recognised across desks, and yet no card number nor a plain hash of it reaches SQLite, PostgreSQL or the logs', async () => {
    const [ann, bob] = [await operator(), await operator()];
    const a = await desk(ann, { logs: true });
    const b = await desk(bob, { logs: true });
    // A Luhn-valid Visa number that appears nowhere else in the code or the other tests.
    const pan = '4571736085234557';
    const grouped = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
    const amount = freshAmount();
    const form = () => cardForm(grouped, { amount });
    expect(value(await a.d('payments.charge', form())).outcome.kind).toBe('pending');
    const asked = value(await b.d('payments.charge', form()));
    expect(asked.outcome.kind).toBe('needs_confirmation');
    expect(
      value(await b.d('payments.confirmRepeat', { token: (asked.outcome as { token: string }).token })).outcome.kind,
    ).toBe('pending');
    // Let the outboxes drain, so what the desks send is in PostgreSQL too.
    for (const x of [a, b]) await x.core.team()!.push.drain();

    // Every way the card could leave as itself or as an unkeyed hash: the number, grouped, and the
    // common digests of it (alone and as the guard's input, "number|amount|currency"), hex and base64.
    const needles: string[] = [pan, grouped];
    for (const input of [pan, `${pan}|${Number(amount)}|UGX`]) {
      for (const alg of ['sha256', 'sha1', 'sha512', 'md5', 'sha3-256']) {
        const digest = crypto.createHash(alg).update(input).digest();
        needles.push(digest.toString('hex'), digest.toString('base64'));
      }
    }
    const found = (text: string) => needles.filter((n) => text.toLowerCase().includes(n.toLowerCase()));

    // SQLite (the database, its -wal and -shm) and the logs of both desks, byte for byte.
    for (const x of [a, b]) {
      const files = allFileBytes(x.dataDir);
      expect(files.some((f) => f.file.endsWith('.sqlite'))).toBe(true);
      expect(files.some((f) => /[\\/]logs[\\/]/.test(f.file))).toBe(true);
      for (const f of files) {
        const text = f.bytes.toString('latin1');
        expect(found(text), f.file).toEqual([]);
        expect(found(Buffer.from(text, 'latin1').toString('utf16le')), f.file).toEqual([]);
      }
    }

    // PostgreSQL: every column of every table of the team schema, as text (bytea as hex).
    const tables = await team.owner.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'team' ORDER BY 1, 2`,
    );
    expect(tables.rows.some((t) => t.table_name === 'charge_guards')).toBe(true);
    for (const { table_name, column_name } of tables.rows) {
      const r = await team.owner.query<{ v: string | null }>(
        `SELECT ${JSON.stringify(column_name)}::text AS v FROM team.${JSON.stringify(table_name)}`,
      );
      for (const { v } of r.rows) if (v) expect(found(v), `team.${table_name}.${column_name}`).toEqual([]);
    }
  });
});
