import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { createServiceClient } from '../../main/service/client.js';
import { createPoller, type Poller, type PollerEvent } from '../../main/poller/index.js';
import { latestBalances } from '../../main/store/sqlite/balances.js';
import { listPaymentOptions } from '../../main/store/sqlite/payment-options.js';
import { listPollRuns } from '../../main/store/sqlite/poll-runs.js';
import { FakeTime } from './fake-time.js';
import { startStub } from './stub-service.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(opts: { withClient?: boolean } = {}) {
  const time = new FakeTime();
  const stub = await startStub();
  const db: Db = openDatabase(path.join(tempDir(), 'md.sqlite'));
  const events: PollerEvent[] = [];
  // retries: 0 so each poll is one request and the poller's own back-off is what we see.
  const client = createServiceClient({
    baseUrl: stub.baseUrl,
    keys: () => ({ publicKey: 'pk_test_1', secretKey: 'sk_test_1' }),
    retries: 0,
    timeoutMs: 5000,
  });
  const poller: Poller = createPoller({
    db,
    getClient: () => (opts.withClient === false ? null : client),
    clock: time.clock,
    sleep: time.sleep,
    intervals: { balancesMs: 60_000, providersMs: 900_000 },
    backoff: { baseMs: 5_000, maxMs: 300_000 },
    onUpdate: (e) => events.push(e),
  });
  cleanups.push(
    () => stub.close(),
    () => poller.stop(),
    () => void db.close(),
  );
  const balancesRequests = () => stub.requests.filter((r) => r.path.startsWith('/data/wallet-balances')).length;
  /** Waits until `n` poll events have arrived in total. */
  const untilEvents = (n: number) =>
    vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(n), { timeout: 5000, interval: 5 });
  return { time, stub, db, events, poller, balancesRequests, untilEvents };
}

describe('poller', () => {
  it('polls both kinds at start, then balances every 60 s and options every 15 min', async () => {
    const { time, db, poller, events, untilEvents, balancesRequests } = await setup();
    poller.start();
    await untilEvents(2);
    expect(
      latestBalances(db, { now: time.now, staleAfterMs: 180_000 }).rows.map((r) => [
        r.currency,
        r.availableMinor,
        r.actualMinor,
      ]),
    ).toEqual([
      ['KES', 123450, 123450],
      ['UGX', 1500000, 1750000],
    ]);
    expect(listPaymentOptions(db).map((o) => o.providerCode)).toEqual(['CARD_UGX', 'MTN_UGX']);
    expect(poller.status().connection).toEqual({ state: 'online' });
    await vi.waitFor(() => expect(time.pending().length).toBe(2));
    expect(time.pending()).toEqual([time.now + 60_000, time.now + 900_000]);
    time.advance(60_000);
    await untilEvents(3);
    expect(events[2]).toMatchObject({ kind: 'balances', outcome: 'ok', changed: 0 });
    expect(balancesRequests()).toBe(2);
    expect(poller.status().balances.lastSuccessAt).toBe(time.now);
  });

  for (const mode of ['html', 'truncated_json', 'wrong_types'] as const) {
    it(`a ${mode} answer leaves the cache untouched and records a clear error`, async () => {
      const { time, db, poller, stub, untilEvents } = await setup();
      poller.start();
      await untilEvents(2);
      const before = latestBalances(db, { now: time.now, staleAfterMs: 180_000 });
      const optionsBefore = listPaymentOptions(db);
      stub.mode = mode;
      await vi.waitFor(() => expect(time.pending().length).toBe(2));
      time.advance(60_000);
      await untilEvents(3);
      const st = poller.status();
      expect(st.balances.lastError?.kind).toBe('unreadable');
      expect(st.connection).toMatchObject({ state: 'error', kind: 'unreadable' });
      const run = listPollRuns(db, { kind: 'balances' })[0]!;
      expect(run.outcome).toBe('error');
      expect(run.errorKind).toBe('unreadable');
      expect(run.errorMessage).toMatch(mode === 'wrong_types' ? /merchant_balances\[0\]/ : /JSON|HTML|not/i);
      const after = latestBalances(db, { now: time.now, staleAfterMs: 180_000 });
      expect(after.rows).toEqual(before.rows);
      expect(after.asOf).toBe(before.asOf);
      expect(after.stale).toBe(true);
      expect(after.lastError?.message).toBe(run.errorMessage);
      // The options cache is not touched by a bad options answer either.
      await poller.refresh('providers');
      expect(listPaymentOptions(db)).toEqual(optionsBefore);
      expect(listPollRuns(db, { kind: 'providers' })[0]!.outcome).toBe('error');
    });
  }

  it('backs off exponentially on errors, capped, and returns to the interval after recovery', async () => {
    const { time, poller, stub, untilEvents, events } = await setup();
    stub.mode = '503';
    poller.start();
    await untilEvents(2);
    // Advance to each wake-up in turn until balances has failed 9 times; note when each kind ran.
    while (events.filter((e) => e.kind === 'balances').length < 9) {
      await vi.waitFor(() => expect(time.pending().length).toBe(2));
      const n = events.length;
      time.advance(time.pending()[0]! - time.now);
      await untilEvents(n + 1);
    }
    const gaps = (kind: string) => {
      const at = events
        .filter((e) => e.kind === kind)
        .map((e) => e.status[kind === 'balances' ? 'balances' : 'providers'].lastRunAt!);
      return at.slice(1).map((t, i) => t - at[i]!);
    };
    // 5 s doubling, capped at the interval (60 s for balances) and at the back-off maximum (5 min).
    expect(gaps('balances')).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000]);
    expect(gaps('providers').slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(poller.status().balances.consecutiveFailures).toBe(9);
    expect(poller.status().connection).toMatchObject({ state: 'error', kind: 'unavailable' });
    stub.mode = 'ok';
    await vi.waitFor(() => expect(time.pending().length).toBe(2));
    time.advance(time.pending()[0]! - time.now);
    await vi.waitFor(() => expect(poller.status().balances).toMatchObject({ consecutiveFailures: 0, lastError: null }));
    await vi.waitFor(() => expect(poller.status().balances.nextRunAt).toBe(time.now + 60_000));
  });

  it('waits at least Retry-After after a 429, even for a manual refresh', async () => {
    const { time, poller, stub, untilEvents, balancesRequests } = await setup();
    poller.start();
    await untilEvents(2);
    stub.mode = '429';
    stub.retryAfterS = 120;
    await poller.refresh('balances');
    const st = poller.status().balances;
    expect(st.lastError?.kind).toBe('rate_limited');
    expect(st.notBefore).toBe(time.now + 120_000);
    const requests = balancesRequests();
    stub.mode = 'ok';
    await poller.refresh('balances'); // honoured: no request
    expect(balancesRequests()).toBe(requests);
    await vi.waitFor(() => expect(time.pending()).toContain(time.now + 120_000));
    time.advance(119_000);
    expect(balancesRequests()).toBe(requests);
    time.advance(1_000);
    await vi.waitFor(() => expect(balancesRequests()).toBe(requests + 1));
    await vi.waitFor(() => expect(poller.status().balances.lastError).toBeNull());
  });

  it('never runs two polls of a kind at once: a refresh during a run joins it', async () => {
    const { poller, stub, untilEvents, balancesRequests, events } = await setup();
    poller.start();
    await untilEvents(2);
    stub.mode = 'hold';
    const a = poller.refresh('balances');
    const b = poller.refresh('balances');
    await vi.waitFor(() => expect(stub.held()).toBe(1));
    expect(poller.status().balances.running).toBe(true);
    const c = poller.refresh();
    // Not a second balances request; the options run waits for this one (it asks per currency it holds).
    expect(stub.held()).toBe(1);
    stub.release();
    await Promise.all([a, b, c]);
    expect(balancesRequests()).toBe(2);
    expect(events.filter((e) => e.kind === 'balances')).toHaveLength(2);
  });

  it('reports offline when the service cannot be reached, and keeps the last success across restarts', async () => {
    const { time, db, poller, stub, untilEvents } = await setup();
    poller.start();
    await untilEvents(2);
    const okAt = time.now;
    await stub.close();
    time.advance(1_000);
    await poller.refresh('balances');
    expect(poller.status().connection).toMatchObject({ state: 'offline' });
    expect(poller.status().balances.lastError?.kind).toBe('network');
    await poller.stop();
    const again = createPoller({
      db,
      getClient: () => null,
      clock: time.clock,
      sleep: time.sleep,
      intervals: { balancesMs: 60_000, providersMs: 900_000 },
    });
    expect(again.status().balances).toMatchObject({ lastSuccessAt: okAt, lastError: { kind: 'network' } });
    expect(again.status().connection).toEqual({ state: 'idle' });
  });

  it('without a configured client every run is a not_configured error and nothing is cached', async () => {
    const { poller, db, untilEvents } = await setup({ withClient: false });
    poller.start();
    await untilEvents(2);
    expect(poller.status().connection).toMatchObject({ state: 'error', kind: 'not_configured' });
    expect(listPollRuns(db).map((r) => r.errorKind)).toEqual(['not_configured', 'not_configured']);
  });

  it('stop() ends the loops; nothing runs afterwards', async () => {
    const { time, poller, untilEvents, balancesRequests } = await setup();
    poller.start();
    await untilEvents(2);
    await poller.stop();
    const n = balancesRequests();
    time.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(balancesRequests()).toBe(n);
    expect(poller.status()).toMatchObject({ started: false, balances: { nextRunAt: null } });
  });
});
