import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { startCallbackReceiver, type CallbackReceiver } from '../../main/callbacks/receiver.js';
import { getCollection } from '../../main/collections/query.js';
import { listOrphanCallbacks } from '../../main/reconcile/index.js';
import { systemClock } from '../../main/clock.js';
import { createServiceClient } from '../../main/service/client.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, deeplyNested, hmacHeader, SIGNING_KEY } from './support.js';
import { buildCardCipher } from '../../main/service/card-cipher.js';
import { validCardData } from '../support/card.js';
import { listSecurityLog } from '../../main/callbacks/security-log.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let db: Db;
let rx: CallbackReceiver | undefined;
let sb: Sandbox | undefined;
afterEach(async () => {
  await rx?.close();
  await sb?.close();
  rx = undefined;
  sb = undefined;
  db?.close();
});

async function start(
  keys: { signingKey?: string; servicePublicKey?: string } = { signingKey: SIGNING_KEY },
  more: Partial<Parameters<typeof startCallbackReceiver>[0]> = {},
) {
  const dir = tempDir();
  db = openDatabase(path.join(dir, 'merchant-desk.db'));
  rx = await startCallbackReceiver({
    db,
    store: sqliteCallbackStore(db, ledger),
    clock: systemClock,
    getKeys: () => keys,
    port: 0,
    ...more,
  });
  return rx;
}

function post(body: string, headers: Record<string, string>, url = rx!.url) {
  return fetch(url, { method: 'POST', body, headers });
}

describe('callback receiver', () => {
  it('stores a signed callback, answers 200 only after it is stored, and a repeat is a 200 no-op', async () => {
    await start();
    const id = insertCollection(db, { reference: 'MD-R-00000001' });
    const body = callbackBody('MD-R-00000001');
    const raw = JSON.stringify(body, null, 2); // exact bytes kept, whitespace and all
    const res = await post(raw, {
      'content-type': 'application/json; charset=utf-8',
      'hmac-signature': hmacHeader(body),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: 'stored' });
    const got = getCollection(db, id)!;
    expect(got.collection.status).toBe('COMPLETED');
    expect(got.events[0]!.payload).toBe(raw);
    // The same callback again, compact and signed a second later: a duplicate.
    const again = await post(JSON.stringify(body), {
      'content-type': 'application/json',
      'hmac-signature': hmacHeader(body, SIGNING_KEY, Math.floor(Date.now() / 1000) + 1),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ result: 'duplicate' });
    expect(getCollection(db, id)!.events).toHaveLength(1);
  });

  // Changed rule: an unverified callback used to be stored as a 'security' event on the collection it
  // named (and flag it); anyone can name a real reference, so now it is only counted in the security log.
  it('bad or missing signature: 401, counted in the security log, and the named collection is untouched', async () => {
    await start();
    const id = insertCollection(db, { reference: 'MD-R-00000002' });
    const before = getCollection(db, id)!;
    const body = callbackBody('MD-R-00000002');
    const res = await post(JSON.stringify(body), {
      'content-type': 'application/json',
      'hmac-signature': hmacHeader(body, 'wrong-key'),
    });
    expect(res.status).toBe(401);
    const none = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(none.status).toBe(401);
    // Signed for FAILED, body says COMPLETED.
    const forged = await post(JSON.stringify(body), {
      'content-type': 'application/json',
      'hmac-signature': hmacHeader(callbackBody('MD-R-00000002', 'FAILED')),
    });
    expect(forged.status).toBe(401);
    await rx!.close();
    rx = undefined;
    const got = getCollection(db, id)!;
    expect(got.collection).toEqual(before.collection);
    expect(got.collection.flags).toEqual([]);
    expect(got.events).toEqual([]);
    expect(listOrphanCallbacks(db).rows).toEqual([]);
    const log = listSecurityLog(db);
    expect(log.totals).toEqual({ bad_signature: 2, missing_signature: 1 });
    expect(log.rows.every((r) => /127\.0\.0\.1$/.test(r.source))).toBe(true);
    expect(log.rows.find((r) => r.reason === 'bad_signature')!.samples[0]).toMatch(
      /^MD-R-00000002: hmac-signature does not match/,
    );
  });

  it('415 for a wrong content type, 413 over 64 KiB, 404 elsewhere, 400 for broken JSON', async () => {
    await start();
    const body = callbackBody('MD-R-00000003');
    const h = hmacHeader(body);
    expect((await post(JSON.stringify(body), { 'content-type': 'text/plain', 'hmac-signature': h })).status).toBe(415);
    expect((await post('event=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await fetch(rx!.url, { method: 'POST' })).status).toBe(415);
    const big = JSON.stringify(callbackBody('MD-R-00000003', 'COMPLETED', { status_message: 'x'.repeat(70 * 1024) }));
    expect((await post(big, { 'content-type': 'application/json', 'hmac-signature': h })).status).toBe(413);
    expect(
      (
        await post(
          JSON.stringify(body),
          { 'content-type': 'application/json', 'hmac-signature': h },
          rx!.url.replace('/callbacks/collections', '/callbacks/other'),
        )
      ).status,
    ).toBe(404);
    expect((await fetch(rx!.url)).status).toBe(404);
    const broken = await post('{"event": "transaction.completed", "payload": {', {
      'content-type': 'application/json',
      'hmac-signature': h,
    });
    expect(broken.status).toBe(400);
    expect(db.prepare('SELECT count(*) AS n FROM collection_events').get()).toEqual({ n: 0 });
  });

  // Issue 39: a correctly signed body with an array nested 8,000 deep (17 KB) was answered 500 ("could not
  // store the callback; retry later"), so the service would retry it forever, and logged as "Maximum call
  // stack size exceeded".
  it('a correctly signed delivery nested past the limit: 422 with a reason, counted once as too deep, logged once; the next is stored', async () => {
    const lines: { level: string; obj: object; msg: string | undefined }[] = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ level: 'info', obj, msg }),
      warn: (obj: object, msg?: string) => lines.push({ level: 'warn', obj, msg }),
      error: (obj: object, msg?: string) => lines.push({ level: 'error', obj, msg }),
    };
    await start(undefined, { logger });
    const id = insertCollection(db, { reference: 'MD-R-00000009' });
    const body = callbackBody('MD-R-00000009');
    const deep = deeplyNested(body);
    const headers = { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body) };
    const res = await post(deep, headers);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      status: 'error',
      message: 'the body is nested more than 32 levels deep; a callback never is',
    });
    // The service retries what it is refused, now as then: the second is counted, not logged again.
    expect((await post(deep, headers)).status).toBe(422);
    expect(getCollection(db, id)!.events).toEqual([]);
    expect(lines.filter((l) => l.level !== 'info')).toEqual([
      {
        level: 'warn',
        obj: { reason: 'too_deep', source: '127.0.0.1', bytes: Buffer.byteLength(deep) },
        msg: 'callback refused: the body is nested more than 32 levels deep; a callback never is (later refusals for this reason are counted in the security log, not logged, until the hour ends)',
      },
    ]);
    // The same callback as the service documents it is stored.
    const good = await post(JSON.stringify(body), headers);
    expect(good.status).toBe(200);
    expect(getCollection(db, id)!.collection.status).toBe('COMPLETED');
    await rx!.close();
    rx = undefined;
    const log = listSecurityLog(db);
    expect(log.totals).toEqual({ too_deep: 2 });
    expect(log.rows[0]!.samples[0]).toMatch(
      /^the body is nested more than 32 levels deep; a callback never is; body: \{"event"/,
    );
  });

  it('unknown reference: kept as an orphan and answered 200', async () => {
    await start();
    const body = callbackBody('SOMEONE-ELSES-REF');
    const res = await post(JSON.stringify(body), {
      'content-type': 'application/json',
      'hmac-signature': hmacHeader(body),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: 'orphan' });
    const o = listOrphanCallbacks(db);
    expect(o.total).toBe(1);
    expect(o.rows[0]).toMatchObject({
      merchantReference: 'SOMEONE-ELSES-REF',
      status: 'COMPLETED',
      signature: 'verified',
      amountMinor: 15000,
    });
  });

  it('records an amount that differs from the intent (signed status, unsigned amount)', async () => {
    await start();
    const id = insertCollection(db, { reference: 'MD-R-00000005', amountMinor: 15000 });
    const body = callbackBody('MD-R-00000005', 'COMPLETED', { request_amount: 1500 });
    expect(
      (await post(JSON.stringify(body), { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body) }))
        .status,
    ).toBe(200);
    expect(getCollection(db, id)!.collection).toMatchObject({ status: 'COMPLETED', flags: ['amount_mismatch'] });
  });

  it('a real sandbox callback for a collection this desk did not start is an orphan; RSA alone verifies', async () => {
    const dir = tempDir();
    sb = await startSandbox({ stateDir: path.join(dir, 'sandbox'), timeScale: 1000 });
    await start({ servicePublicKey: sb.servicePublicKeyPem }); // no signing key: RSA signature only
    sb.controls.config({ callback_url: rx!.url });
    const client = createServiceClient({
      baseUrl: sb.baseUrl,
      keys: () => ({ publicKey: sb!.publicKey, secretKey: sb!.secretKey }),
    });
    const cipher = buildCardCipher(
      validCardData({
        first_name: 'A',
        last_name: 'B',
        card_no: '4242424242424242',
        exp_month: '12',
        exp_year: '2031',
        cvv: '123',
      }),
      sb.servicePublicKeyPem,
    );
    const r = await client.initialize({
      merchantReference: 'ELSEWHERE-0001',
      currency: 'UGX',
      amountMinor: 20000,
      description: 'Made on another desk',
      cardCipher: cipher,
      redirectUrl: 'https://shop.invalid/return',
    });
    await sb.controls.complete(r.merchantReference, 'approve');
    await sb.controls.callbacksSettled(10_000);
    expect(listOrphanCallbacks(db).rows.map((x) => [x.merchantReference, x.status, x.signature])).toEqual([
      ['ELSEWHERE-0001', 'COMPLETED', 'verified'],
    ]);
    expect(sb.controls.callbackLog().at(-1)).toMatchObject({ status: 'delivered', http_status: 200 });
  });

  describe('group commit', () => {
    // maxGroup = the burst size and a long window: the group is stored exactly when its last delivery arrives.
    const burst = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
    const send = (ref: string) => {
      const body = callbackBody(ref);
      return post(JSON.stringify(body), { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body) });
    };

    it('stores a burst in one commit and answers each only once it is stored', async () => {
      const refs = burst(12, 'MD-G');
      const ingested: number[] = [];
      await start(undefined, {
        maxGroup: refs.length,
        groupCommitWindowMs: 60_000,
        onIngest: (o) => 'eventId' in o && o.eventId !== null && ingested.push(o.eventId),
      });
      const ids = refs.map((reference) => insertCollection(db, { reference }));
      // Another connection sees only what is committed.
      const other = openDatabase(db.name);
      try {
        const seen = await Promise.all(
          refs.map(async (ref) => {
            const res = await send(ref);
            const stored = other
              .prepare(`SELECT count(*) FROM collection_events WHERE merchant_reference = ? AND source = 'callback'`)
              .pluck()
              .get(ref);
            return [res.status, stored];
          }),
        );
        expect(seen).toEqual(refs.map(() => [200, 1]));
      } finally {
        other.close();
      }
      expect(rx!.stats()).toMatchObject({ deliveries: 12, commits: 1, largestGroup: 12, fallbacks: 0 });
      expect(ids.map((id) => getCollection(db, id)!.collection.status)).toEqual(refs.map(() => 'COMPLETED'));
      expect(ingested).toHaveLength(12);
    });

    it('a delivery that fails does not take the others down: they are stored one by one and answered 200', async () => {
      const refs = burst(8, 'MD-H');
      await start(undefined, { maxGroup: refs.length, groupCommitWindowMs: 60_000 });
      for (const reference of refs) insertCollection(db, { reference });
      // A real failure inside SQLite for one of them (as a full disk or a constraint would be).
      db.exec(`CREATE TRIGGER fail_one BEFORE INSERT ON collection_events WHEN NEW.merchant_reference = '${refs[3]}'
               BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      const statuses = await Promise.all(refs.map(async (ref) => (await send(ref)).status));
      expect(statuses).toEqual(refs.map((r) => (r === refs[3] ? 500 : 200)));
      const stored = db
        .prepare(
          `SELECT merchant_reference FROM collection_events WHERE source = 'callback' ORDER BY merchant_reference`,
        )
        .pluck()
        .all();
      expect(stored).toEqual(refs.filter((r) => r !== refs[3]));
      expect(rx!.stats()).toMatchObject({ deliveries: 8, fallbacks: 1, commits: 7 });
      // The service retries the failed one; once the fault is gone it is stored.
      db.exec('DROP TRIGGER fail_one');
      await rx!.close();
      rx = await startCallbackReceiver({
        db,
        store: sqliteCallbackStore(db, ledger),
        clock: systemClock,
        getKeys: () => ({ signingKey: SIGNING_KEY }),
        port: 0,
      });
      expect((await send(refs[3]!)).status).toBe(200);
      expect(getCollection(db, refs[3]!)!.collection.status).toBe('COMPLETED');
    });

    it('each delivery is reconciled in the commit that stores it; a failing reconciliation fails only its own', async () => {
      const refs = burst(6, 'MD-R');
      await start(undefined, { maxGroup: refs.length, groupCommitWindowMs: 60_000 });
      const ids = refs.map((reference) => insertCollection(db, { reference }));
      db.exec(`CREATE TRIGGER fail_recon BEFORE INSERT ON reconciliation WHEN NEW.collection_id = ${ids[2]}
               BEGIN SELECT RAISE(ABORT, 'injected reconciliation failure'); END`);
      const other = openDatabase(db.name);
      try {
        const seen = await Promise.all(
          refs.map(async (ref, i) => {
            const res = await send(ref);
            // Answered only once committed, and the reconciliation row is in that same commit.
            const recon = other
              .prepare('SELECT callback_status FROM reconciliation WHERE collection_id = ?')
              .pluck()
              .get(ids[i]);
            return [res.status, recon ?? null];
          }),
        );
        expect(seen).toEqual(refs.map((_, i) => (i === 2 ? [500, null] : [200, 'COMPLETED'])));
      } finally {
        other.close();
      }
      expect(rx!.stats()).toMatchObject({ deliveries: 6, fallbacks: 1, commits: 5 });
      expect(
        db
          .prepare(`SELECT count(*) FROM collection_events WHERE source = 'callback' AND merchant_reference = ?`)
          .pluck()
          .get(refs[2]),
      ).toBe(0);
    });

    it('closing stores and answers the deliveries still waiting for their group', async () => {
      const refs = burst(3, 'MD-C');
      await start(undefined, { maxGroup: 100, groupCommitWindowMs: 60_000 });
      for (const reference of refs) insertCollection(db, { reference });
      const answers = refs.map((ref) => send(ref));
      // Received and waiting for the rest of their group (the window is a minute).
      while (rx!.stats().waiting < 3) await new Promise((r) => setTimeout(r, 10));
      expect(rx!.stats()).toMatchObject({ deliveries: 0, commits: 0 });
      await rx!.close();
      expect(await Promise.all(answers.map(async (a) => (await a).status))).toEqual([200, 200, 200]);
      expect(db.prepare(`SELECT count(*) FROM collection_events WHERE source = 'callback'`).pluck().get()).toBe(3);
    });

    it('keys that cannot be read: every delivery of the group gets 500 and nothing is stored', async () => {
      const refs = burst(3, 'MD-K');
      await start(undefined, {
        maxGroup: refs.length,
        groupCommitWindowMs: 60_000,
        getKeys: () => {
          throw new Error('keychain locked');
        },
      });
      for (const reference of refs) insertCollection(db, { reference });
      expect(await Promise.all(refs.map(async (ref) => (await send(ref)).status))).toEqual([500, 500, 500]);
      expect(db.prepare('SELECT count(*) FROM collection_events').pluck().get()).toBe(0);
    });
  });
});
