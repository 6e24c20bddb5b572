// The poller against the real sandbox over loopback HTTP (fault controls for malformed answers), with a
// fake clock driving the poll schedule.
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { startSandbox } from '../../sandbox/index.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { createServiceClient } from '../../main/service/client.js';
import { createPoller, type PollerEvent } from '../../main/poller/index.js';
import { latestBalances } from '../../main/store/sqlite/balances.js';
import { listPaymentOptions } from '../../main/store/sqlite/payment-options.js';
import { listPollRuns } from '../../main/store/sqlite/poll-runs.js';
import { FakeTime } from './fake-time.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('poller against the sandbox', () => {
  it('caches real balances and options; HTML, truncated JSON and wrong types leave the cache; rate limit waits Retry-After', async () => {
    const sb = await startSandbox({ stateDir: tempDir() });
    cleanups.push(() => sb.close());
    const db = openDatabase(path.join(tempDir(), 'md.sqlite'));
    cleanups.push(() => void db.close());
    const time = new FakeTime();
    const client = createServiceClient({
      baseUrl: sb.baseUrl,
      keys: () => ({ publicKey: sb.publicKey, secretKey: sb.secretKey }),
      retries: 0,
    });
    const events: PollerEvent[] = [];
    const poller = createPoller({
      db,
      getClient: () => client,
      clock: time.clock,
      sleep: time.sleep,
      intervals: { balancesMs: 60_000, providersMs: 900_000 },
      onUpdate: (e) => events.push(e),
    });
    cleanups.push(() => poller.stop());
    poller.start();
    await vi.waitFor(() => expect(events.length).toBe(2), { timeout: 10_000 });
    const cached = latestBalances(db, { now: time.now, staleAfterMs: 180_000 });
    expect(cached.rows).toHaveLength(8);
    expect(new Set(cached.rows.map((r) => r.currency))).toEqual(new Set(['UGX', 'KES', 'TZS', 'USD']));
    expect(cached.rows.every((r) => r.consistent)).toBe(true);
    const options = listPaymentOptions(db);
    expect(options.some((o) => o.transactionMethod === 'CARD' && o.currency === 'UGX')).toBe(true);
    expect(options.some((o) => !o.isActive)).toBe(true);

    for (const kind of ['html', 'truncated_json', 'wrong_types'] as const) {
      sb.controls.addFault({ route: 'balances', kind, times: 1 });
      const st = await poller.refresh('balances');
      // The sandbox's HTML error page comes with a 5xx status: the service is unavailable, said readably.
      expect(st.balances.lastError?.kind, kind).toBe(kind === 'html' ? 'unavailable' : 'unreadable');
      expect(st.balances.lastError?.message).toMatch(
        kind === 'html' ? /HTML|html|503|500|unavailable/i : /JSON|merchant_balances|not/i,
      );
      const now = latestBalances(db, { now: time.now, staleAfterMs: 180_000 });
      expect(now.rows).toEqual(cached.rows);
      expect(now.stale).toBe(true);
    }
    expect(
      listPollRuns(db, { kind: 'balances' })
        .slice(0, 3)
        .map((r) => r.errorKind),
    ).toEqual(['unreadable', 'unreadable', 'unavailable']);

    sb.controls.addFault({ route: 'providers', kind: 'wrong_types', times: 1 });
    const pst = await poller.refresh('providers');
    expect(pst.providers.lastError?.kind).toBe('unreadable');
    expect(listPaymentOptions(db)).toEqual(options);

    sb.controls.addFault({ route: 'balances', kind: 'rate_limit', times: 1, retry_after_s: 90 });
    const limited = await poller.refresh('balances');
    expect(limited.balances.lastError?.kind).toBe('rate_limited');
    expect(limited.balances.notBefore).toBe(time.now + 90_000);

    time.advance(90_000);
    // Both kinds recover (providers on its back-off retry within those 90 s, after the balances run it
    // takes its currencies from).
    await vi.waitFor(
      () => {
        expect(poller.status().balances.lastError).toBeNull();
        expect(poller.status().providers.lastError).toBeNull();
      },
      { timeout: 10_000 },
    );
    expect(poller.status().connection).toEqual({ state: 'online' });
    // Each options run asks four currencies: twice the requests of a bare list, on a busy machine.
  }, 60_000);
});
