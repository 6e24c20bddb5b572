// The status bar's words from the workspace's state alone (no database, keychain or network).
import { describe, expect, it } from 'vitest';
import { statusFrom, type StatusState } from '../../main/app/status.js';
import type { KindStatus, PollerStatus } from '../../main/poller/index.js';

const kind = (lastSuccessAt: number | null): KindStatus => ({
  running: false,
  lastSuccessAt,
  lastRunAt: null,
  lastError: null,
  consecutiveFailures: 0,
  nextRunAt: null,
  notBefore: null,
});
const poller = (
  connection: PollerStatus['connection'],
  balances: number | null = 5,
  providers: number | null = 7,
): PollerStatus => ({
  started: true,
  connection,
  balances: kind(balances),
  providers: kind(providers),
});
const state = (o: Partial<StatusState> = {}): StatusState => ({
  profile: 'sandbox',
  keychain: 'available',
  started: true,
  sandboxRunning: false,
  startError: null,
  connection: { ok: true },
  poller: poller({ state: 'online' }),
  lastSuccessFromLog: null,
  ...o,
});

describe('statusFrom', () => {
  it('says starting until the first connection attempt is over: the sandbox on the embedded profile, else connecting', () => {
    expect(
      statusFrom(
        state({ started: false, profile: 'embedded', keychain: 'memory', poller: null, lastSuccessFromLog: 42 }),
      ),
    ).toEqual({
      profile: 'embedded',
      keychain: 'memory',
      connection: 'starting',
      message: 'Starting the sandbox…',
      words: { id: 'status.startingSandbox' },
      lastSuccessfulPoll: 42,
    });
    expect(
      statusFrom(state({ started: false, profile: 'embedded', sandboxRunning: true, poller: null })),
    ).toMatchObject({ connection: 'starting', message: 'Connecting…' });
    expect(statusFrom(state({ started: false, poller: null }))).toMatchObject({
      connection: 'starting',
      message: 'Connecting…',
      lastSuccessfulPoll: null,
    });
  });

  it('a failed start is an error naming why, before anything the connection says', () => {
    expect(statusFrom(state({ startError: 'port 1 is taken', connection: null, poller: null }))).toMatchObject({
      connection: 'error',
      message: 'Start-up failed: port 1 is taken',
    });
  });

  it('no usable connection: not configured, with the reason', () => {
    expect(
      statusFrom(
        state({
          connection: { ok: false, message: 'the secret key is not set; enter it in Settings' },
          poller: null,
          lastSuccessFromLog: 9,
        }),
      ),
    ).toEqual({
      profile: 'sandbox',
      keychain: 'available',
      connection: 'not_configured',
      message: 'the secret key is not set; enter it in Settings',
      words: { id: 'status.notConfigured', values: { reason: 'the secret key is not set; enter it in Settings' } },
      lastSuccessfulPoll: 9,
    });
    expect(statusFrom(state({ connection: null, poller: null }))).toMatchObject({
      connection: 'not_configured',
      message: 'starting',
    });
  });

  it('connected: what the poller last saw', () => {
    expect(statusFrom(state({ poller: null }))).toMatchObject({ connection: 'starting', message: null });
    expect(statusFrom(state({ poller: poller({ state: 'idle' }) }))).toMatchObject({
      connection: 'starting',
      message: null,
    });
    expect(statusFrom(state())).toEqual({
      profile: 'sandbox',
      keychain: 'available',
      connection: 'online',
      message: null,
      words: null,
      lastSuccessfulPoll: 5,
    });
    expect(statusFrom(state({ poller: poller({ state: 'offline', message: 'no answer' }) }))).toMatchObject({
      connection: 'offline',
      message: 'no answer',
    });
    expect(statusFrom(state({ poller: poller({ state: 'error', kind: 'auth', message: 'bad key' }) }))).toMatchObject({
      connection: 'error',
      message: 'bad key',
    });
  });

  it("the last successful poll: this session's balances, else its options, else the poll log's", () => {
    expect(
      statusFrom(state({ poller: poller({ state: 'online' }, null, 7), lastSuccessFromLog: 1 })).lastSuccessfulPoll,
    ).toBe(7);
    // Once a poller runs its status answers, even when it has no success yet.
    expect(
      statusFrom(state({ poller: poller({ state: 'online' }, null, null), lastSuccessFromLog: 1 })).lastSuccessfulPoll,
    ).toBeNull();
    expect(statusFrom(state({ poller: null, lastSuccessFromLog: 1 })).lastSuccessfulPoll).toBe(1);
  });
});
