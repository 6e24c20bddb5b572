// The idle lock with a fake clock: after the idle time every channel but the lock's own is refused with
// kind 'locked', activity starts the idle time again, a wrong passphrase is refused; and the setting's bounds.
import { afterEach, describe, expect, it } from 'vitest';
import { createIdleLock, PassphraseUnlocker, type IdleLock } from '../../main/lock/index.js';
import { lockGate, PASSIVE_READS } from '../../main/ipc/lock-gate.js';
import { MemoryAppSecret } from '../../main/secrets/index.js';
import { channels, type ChannelName } from '../../main/ipc/contract/index.js';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { lockHandlers } from '../../main/ipc/handlers/lock.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import type { Core } from '../../main/app/core.js';
import { composeCore } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { silentLogger } from '../../main/log/index.js';
import { SettingsError, validateSettings, defaultSettings } from '../../main/settings/index.js';
import { tempDir } from '../support/tmp.js';

const FAST = { N: 2 ** 10, r: 8, p: 1 };
const MINUTE = 60_000;

function fakeClock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function setup(idleMs = 15 * MINUTE) {
  const clock = fakeClock();
  const changes: boolean[] = [];
  const unlocker = new PassphraseUnlocker(new MemoryAppSecret(), FAST);
  const lock = createIdleLock({
    clock,
    idleMs: () => idleMs,
    unlocker: () => unlocker,
    checkEveryMs: 0,
    onChange: (e) => changes.push(e.locked),
  });
  // Every channel of the contract answers "ok" unless the gate refuses it; the lock's own are real.
  const table: HandlerTable = {};
  for (const name of Object.keys(channels)) table[name] = () => 'ok';
  Object.assign(
    table,
    lockHandlers(
      {
        unlock: (s, o) => lock.unlock(s, o),
        setPassphrase: (p) => lock.setPassphrase(p),
        lockNow: () => lock.lockNow(),
      },
      { lockStatus: () => lock.status() },
    ),
  );
  const dispatch = createDispatcher(table, undefined, lockGate(lock));
  return { clock, lock, unlocker, changes, dispatch };
}

// The lock screen asks for the desk's language too (it speaks it): a read that unlocks nothing.
const LOCK_OPEN = ['lock.status', 'lock.unlock', 'lock.setPassphrase', 'app.language'];

function sample(name: string): unknown {
  // Requests valid enough to reach the gate (it runs before validation, so any object will do).
  if (name === 'lock.unlock') return { secret: 'not it at all' };
  if (name === 'lock.setPassphrase') return { passphrase: 'short' }; // refused: choosing one would unlock
  return {};
}

describe('idle lock', () => {
  it('after the idle time refuses every channel but lock.status, lock.unlock and lock.setPassphrase', async () => {
    const { clock, dispatch, changes } = await setup();
    expect((await dispatch('balances.latest', {})).ok).toBe(true);
    clock.advance(15 * MINUTE - 1);
    expect((await dispatch('app.info', {})).ok).toBe(true);
    clock.advance(1);
    for (const name of Object.keys(channels)) {
      const r = await dispatch(name, sample(name));
      if (LOCK_OPEN.includes(name)) {
        expect(r.ok || r.error.kind !== 'locked', name).toBe(true);
      } else {
        expect(r, name).toEqual({
          ok: false,
          error: { kind: 'locked', message: expect.stringMatching(/locked/), words: { id: 'lock.locked' } },
        });
      }
    }
    expect(changes).toEqual([true]);
  });

  it('activity (the renderer report or any call but a passive re-read) starts the idle time again', async () => {
    const { clock, lock, dispatch } = await setup(MINUTE);
    clock.advance(50_000);
    lock.activity();
    clock.advance(50_000);
    expect(lock.check()).toBe(false);
    expect((await dispatch('lock.activity', {})).ok).toBe(true);
    clock.advance(50_000);
    expect((await dispatch('reports.target', {})).ok).toBe(true); // a call that is not a passive read
    // Screens re-read after every push (balances each poll): that alone must not keep the app open.
    expect(PASSIVE_READS.has('balances.latest' as ChannelName)).toBe(true);
    for (let i = 0; i < 2; i++) {
      clock.advance(20_000);
      expect((await dispatch('balances.latest', {})).ok).toBe(true);
    }
    clock.advance(20_000);
    expect((await dispatch('balances.latest', {})).ok).toBe(false);
    expect(lock.isLocked()).toBe(true);
  });

  it('activity reported after the idle time does not undo the lock', async () => {
    const { clock, lock } = await setup(MINUTE);
    clock.advance(MINUTE);
    lock.activity();
    expect(lock.isLocked()).toBe(true);
  });

  it('first use: the passphrase is chosen on the lock screen and unlocks; then only that passphrase unlocks', async () => {
    const { clock, dispatch, lock, unlocker } = await setup(MINUTE);
    expect(await lock.status()).toMatchObject({
      locked: false,
      needsSetup: true,
      method: 'passphrase',
      idleLockMs: MINUTE,
    });
    clock.advance(MINUTE);
    expect(await dispatch('lock.status', {})).toMatchObject({ ok: true, value: { locked: true, needsSetup: true } });
    expect(await dispatch('lock.unlock', { secret: 'anything' })).toMatchObject({
      ok: false,
      error: { kind: 'conflict' },
    });
    expect(await dispatch('lock.setPassphrase', { passphrase: 'short' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'passphrase' },
    });
    expect(await dispatch('lock.setPassphrase', { passphrase: 'a good passphrase' })).toMatchObject({
      ok: true,
      value: { locked: false, needsSetup: false },
    });
    expect(await unlocker.verify('a good passphrase')).toBe(true);

    clock.advance(MINUTE);
    // Choosing again while locked is refused: it would let anyone in.
    expect(await dispatch('lock.setPassphrase', { passphrase: 'my own passphrase' })).toMatchObject({
      ok: false,
      error: { kind: 'conflict' },
    });
    const wrong = await dispatch('lock.unlock', { secret: 'a bad passphrase' });
    expect(wrong).toEqual({
      ok: false,
      error: {
        kind: 'wrong_passphrase',
        message: 'Wrong passphrase.',
        words: { id: 'lock.wrongPassphrase' },
        field: 'secret',
      },
    });
    expect((await dispatch('balances.latest', {})).ok).toBe(false);
    expect(await dispatch('lock.unlock', { secret: 'a good passphrase' })).toMatchObject({
      ok: true,
      value: { locked: false },
    });
    expect((await dispatch('balances.latest', {})).ok).toBe(true);
  });

  it('lock now locks at once; after five wrong tries each further try waits, doubling', async () => {
    const { clock, dispatch, lock } = await setup();
    await lock.setPassphrase('the right passphrase');
    expect(await dispatch('lock.lockNow', {})).toMatchObject({ ok: true, value: { locked: true } });
    for (let i = 0; i < 5; i++)
      expect(await dispatch('lock.unlock', { secret: `wrong ${i}` })).toMatchObject({
        ok: false,
        error: { kind: 'wrong_passphrase' },
      });
    expect(await dispatch('lock.unlock', { secret: 'the right passphrase' })).toMatchObject({
      ok: false,
      error: { kind: 'rate_limited' },
    });
    clock.advance(1_000);
    expect(await dispatch('lock.unlock', { secret: 'still wrong' })).toMatchObject({
      ok: false,
      error: { kind: 'wrong_passphrase' },
    });
    clock.advance(1_000);
    expect(await dispatch('lock.unlock', { secret: 'the right passphrase' })).toMatchObject({
      ok: false,
      error: { kind: 'rate_limited' },
    });
    clock.advance(1_000);
    expect(await dispatch('lock.unlock', { secret: 'the right passphrase' })).toMatchObject({
      ok: true,
      value: { locked: false },
    });
  });

  it('a call already running when the app locks finishes and answers (a charge in flight is not lost)', async () => {
    const clock = fakeClock();
    const unlocker = new PassphraseUnlocker(new MemoryAppSecret(), FAST);
    const lock: IdleLock = createIdleLock({ clock, idleMs: () => MINUTE, unlocker: () => unlocker, checkEveryMs: 0 });
    let finish: ((v: string) => void) | undefined;
    // Stands in for payments.charge (whose request needs a card): any handler still running when the lock comes.
    const table: HandlerTable = { 'balances.refresh': () => new Promise<string>((r) => (finish = r)) };
    const dispatch = createDispatcher(table, undefined, lockGate(lock));
    const inFlight = dispatch('balances.refresh', {});
    await new Promise((r) => setTimeout(r, 0));
    clock.advance(MINUTE);
    expect(lock.check()).toBe(true);
    expect(finish).toBeDefined();
    finish!('charged');
    expect(await inFlight).toEqual({ ok: true, value: 'charged' });
  });
});

describe('idle lock setting', () => {
  const candidate = (idleLockMinutes: unknown) => ({ ...defaultSettings(), idleLockMinutes });

  it('defaults to 15 minutes and refuses more, naming the field', () => {
    expect(defaultSettings().idleLockMinutes).toBe(15);
    expect(validateSettings(candidate(15)).idleLockMinutes).toBe(15);
    expect(validateSettings(candidate(1)).idleLockMinutes).toBe(1);
    let err: unknown;
    try {
      validateSettings(candidate(16));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as SettingsError).field).toBe('idleLockMinutes');
    expect((err as SettingsError).message).toBe('idleLockMinutes must be at most 15 minutes');
    expect(() => validateSettings(candidate(0))).toThrow(/idleLockMinutes must be at least 1 minute/);
    expect(() => validateSettings(candidate('5'))).toThrow(/idleLockMinutes must be a number of minutes/);
  });

  it('takes a fraction of a minute (seconds) only under NODE_ENV=test, for the end-to-end test', () => {
    expect(process.env.NODE_ENV).toBe('test');
    expect(validateSettings(candidate(0.05)).idleLockMinutes).toBe(0.05);
  });
});

describe('idle lock in the composed app', () => {
  let core: Core | undefined;
  afterEach(async () => {
    await core?.close();
    core = undefined;
  });

  it('reads the idle time from settings, refuses 16 minutes over IPC, and the shells gate on core.lock', async () => {
    const clock = fakeClock();
    const unlocker = new PassphraseUnlocker(new MemoryAppSecret(), FAST);
    core = await composeCore({
      dataDir: tempDir(),
      logger: silentLogger(),
      poll: false,
      receiver: false,
      clock,
      lock: { unlocker: () => unlocker, checkEveryMs: 0 },
    });
    const pushed: unknown[] = [];
    core.events.subscribe((name, payload) => name === 'lock.changed' && pushed.push(payload));
    const d = createDispatcher(buildHandlers(core), undefined, lockGate(core.lock));
    expect(await d('settings.update', { idleLockMinutes: 16 })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'idleLockMinutes', message: 'idleLockMinutes must be at most 15 minutes' },
    });
    expect(await d('settings.update', { idleLockMinutes: 2 })).toMatchObject({
      ok: true,
      value: { idleLockMinutes: 2 },
    });
    expect(await d('lock.status', {})).toMatchObject({ ok: true, value: { locked: false, idleLockMs: 2 * MINUTE } });
    clock.advance(2 * MINUTE);
    expect(await d('settings.get', {})).toMatchObject({ ok: false, error: { kind: 'locked' } });
    expect(pushed).toEqual([{ locked: true }]);
    expect(await d('lock.setPassphrase', { passphrase: 'first use passphrase' })).toMatchObject({
      ok: true,
      value: { locked: false },
    });
    expect(pushed).toEqual([{ locked: true }, { locked: false }]);
    expect((await d('settings.get', {})).ok).toBe(true);
  });
});
