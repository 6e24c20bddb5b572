// Issue 39: the payment options are asked as the contract shows the request, once per currency the merchant
// holds with transaction_type=COLLECTION; a currency whose options cannot be read is named, and the others
// are still stored. Against the real sandbox over HTTP, made strict (a test control: the contract leaves
// open whether a service requires the two parameters).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { createServiceClient } from '../../main/service/client.js';
import { createPoller, type Poller } from '../../main/poller/index.js';
import { listPaymentOptions, paymentOptionsList } from '../../main/store/sqlite/payment-options.js';
import { FakeTime } from './fake-time.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp(): Promise<{ sb: Sandbox; db: Db; poller: Poller; time: FakeTime }> {
  const sb = await startSandbox({ stateDir: tempDir() });
  cleanups.push(() => sb.close());
  sb.controls.config({ strict_options: true });
  const db = openDatabase(path.join(tempDir(), 'md.sqlite'));
  cleanups.push(() => void db.close());
  const time = new FakeTime();
  const client = createServiceClient({
    baseUrl: sb.baseUrl,
    keys: () => ({ publicKey: sb.publicKey, secretKey: sb.secretKey }),
    retries: 0,
  });
  const poller = createPoller({
    db,
    getClient: () => client,
    clock: time.clock,
    sleep: time.sleep,
    intervals: { balancesMs: 60_000, providersMs: 900_000 },
  });
  cleanups.push(() => poller.stop());
  return { sb, db, poller, time };
}

describe('payment options per currency', () => {
  it('a service that requires currency and transaction_type gets them: every held currency is read', async () => {
    const { db, poller } = await setUp();
    const st = await poller.refresh('providers');
    // Before issue 39 the bare request was refused: "currency is required".
    expect(st.providers.lastError).toBeNull();
    const options = listPaymentOptions(db);
    expect(new Set(options.map((o) => o.currency))).toEqual(new Set(['KES', 'TZS', 'UGX', 'USD']));
    expect(options.every((o) => o.transactionType.toUpperCase() === 'COLLECTION')).toBe(true);
    expect(options.some((o) => o.transactionMethod === 'CARD' && o.currency === 'USD')).toBe(true);
  });

  it('one currency that cannot be read is named; the others are stored and its cached options kept', async () => {
    const { sb, db, poller, time } = await setUp();
    await poller.refresh('providers');
    const kesBefore = listPaymentOptions(db, { currency: 'KES' });
    expect(kesBefore.length).toBeGreaterThan(0);
    time.advance(60_000);
    sb.controls.addFault({ route: 'providers', kind: '503', currency: 'KES', times: 0 });
    const st = await poller.refresh('providers');
    expect(st.providers.lastError?.message).toMatch(
      /^the payment options for KES could not be read: The service is unavailable \(HTTP 503\).*\(TZS, UGX and USD were read\)$/,
    );
    expect(st.providers.lastError?.kind).toBe('unavailable');
    // KES: as cached before; the others: from this run.
    expect(listPaymentOptions(db, { currency: 'KES' })).toEqual(kesBefore);
    expect(listPaymentOptions(db, { currency: 'UGX' }).every((o) => o.fetchedAt === time.now)).toBe(true);
    // What the Payment options screen is given: stale, with the words that name KES.
    const list = paymentOptionsList(db, { now: time.now, staleAfterMs: 1_800_000 });
    expect(list.stale).toBe(true);
    expect(list.lastError?.message).toContain('the payment options for KES could not be read');
  });

  it('no currency read at all: a failure that names each, and the cached list as it was', async () => {
    const { sb, db, poller } = await setUp();
    await poller.refresh('providers');
    const before = listPaymentOptions(db);
    sb.controls.addFault({ route: 'providers', kind: 'html', times: 0 });
    const st = await poller.refresh('providers');
    for (const c of ['KES', 'TZS', 'UGX', 'USD'])
      expect(st.providers.lastError?.message).toContain(`the payment options for ${c} could not be read`);
    expect(st.providers.lastError?.message).not.toContain('were read');
    expect(listPaymentOptions(db)).toEqual(before);
  });
});
