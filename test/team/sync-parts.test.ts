// The team sync's parts that do not talk to a database, each alone: the status (one object, computed in
// one place), the notices (what the screens are told, on the beat) and the scheduler (when to pull: the
// beat, the periodic pull, one pull at a time, a retry after a failure). The clock is faked; nothing else.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSyncStatus, failureWords, initialStatus, type TeamSyncStatus } from '../../main/team/sync/status.js';
import { createSyncNotices } from '../../main/team/sync/notices.js';
import { createScheduler } from '../../main/team/sync/scheduler.js';
import { TeamSignInError, TeamUnavailableError } from '../../main/team/errors.js';

const quiet = { info() {}, warn() {} };
const col = (id: number, status = 'COMPLETED') => ({ id, reference: `MD-${id}`, status });

describe('the status', () => {
  it('is one object its watchers hear change; a drain notes progress silently until the next change tells it all', () => {
    const status = createSyncStatus(initialStatus(7, null, 5_000), quiet);
    const heard: TeamSyncStatus[] = [];
    status.watch((s) => heard.push(s));
    status.reached();
    status.reached(); // already online: nothing new to tell
    expect(heard.map((s) => s.online)).toEqual([true]);
    status.note({ lastSeq: 9 });
    expect(heard).toHaveLength(1);
    status.pulled(1_000);
    expect(heard.at(-1)).toMatchObject({ online: true, lastSeq: 9, lastPullAt: 1_000, error: null });
  });

  it('says why a pull failed: offline with the retry, a refused sign-in as such, and online again once a pull succeeds', () => {
    const status = createSyncStatus(initialStatus(0, null, 5_000), quiet);
    status.pulled(1);
    const down = new TeamUnavailableError('connect ECONNREFUSED');
    status.failed(down, { silent: true, ms: 1_000 });
    expect(status.get()).toMatchObject({ online: false, signInRefused: false });
    expect(status.get().error).toBe(failureWords(down, { silent: true, ms: 1_000 }));
    expect(status.get().error).toMatch(/^Offline: .*trying again every second/);
    expect(failureWords(down, { silent: false, ms: 4_000 })).toMatch(/retrying in 4 s/);
    status.failed(new TeamSignInError('password authentication failed'), { silent: false, ms: 500 });
    expect(status.get()).toMatchObject({ signInRefused: true, disabled: false });
    status.pulled(2);
    expect(status.get()).toMatchObject({ online: true, error: null, signInRefused: false });
  });
});

describe('the notices', () => {
  it('tell a batch at once after a quiet beat, merge those within the beat (each collection once, newest status), and flush at the end of a pull', () => {
    let t = 0;
    const told: { id: number; status: string }[][] = [];
    const orphans: number[] = [];
    const n = createSyncNotices(
      { onApplied: (c) => told.push(c.map(({ id, status }) => ({ id, status }))), onOrphans: (k) => orphans.push(k) },
      { beatMs: 250, logger: quiet, now: () => t },
    );
    n.applied([col(1, 'PENDING')], 0);
    expect(told).toEqual([[{ id: 1, status: 'PENDING' }]]);
    t = 100;
    n.applied([col(2), col(1, 'COMPLETED')], 1);
    n.applied([], 2);
    expect(told).toHaveLength(1); // within the beat: waits
    t = 260;
    n.applied([col(3)], 0);
    expect(told.at(-1)).toEqual([
      { id: 2, status: 'COMPLETED' },
      { id: 1, status: 'COMPLETED' },
      { id: 3, status: 'COMPLETED' },
    ]);
    expect(orphans).toEqual([3]);
    t = 300;
    n.applied([col(4)], 0);
    n.flush(); // the pull is over: told now, whatever the beat
    expect(told.at(-1)).toEqual([{ id: 4, status: 'COMPLETED' }]);
    n.flush(); // nothing waits: nothing told
    expect(told).toHaveLength(3);
  });

  it('a watcher that throws is logged and the next notice still goes', () => {
    const warned: unknown[] = [];
    let calls = 0;
    const n = createSyncNotices(
      {
        onApplied: () => {
          calls++;
          throw new Error('window gone');
        },
      },
      { beatMs: 0, logger: { warn: (o) => warned.push(o) } },
    );
    n.applied([col(1)], 0);
    n.applied([col(2)], 0);
    expect([calls, warned.length]).toEqual([2, 2]);
  });
});

describe('the scheduler', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  function scheduler(
    pull: (why: { woken: boolean }) => Promise<number>,
    listening?: { hold(): void; resume(): Promise<void> },
  ) {
    const status = createSyncStatus(initialStatus(0, null, 5_000), quiet);
    return {
      status,
      s: createScheduler({
        pull,
        ...(listening ? { listening } : {}),
        status,
        now: () => Date.now(),
        logger: quiet,
        url: undefined,
        beatMs: 250,
        pullEveryMs: () => 60_000,
      }),
    };
  }

  it('pulls at once after a quiet spell; notifications within the beat of that pull share the next, one beat later', async () => {
    let pulls = 0;
    const { s } = scheduler(async () => ++pulls);
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(pulls).toBe(1);
    for (let i = 0; i < 20; i++) {
      s.wake();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(pulls).toBe(1); // 200 ms after the pull: still within the beat
    await vi.advanceTimersByTimeAsync(50);
    expect(pulls).toBe(2); // the twenty share one pull
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pulls).toBe(2); // nothing more woke it
    await s.close();
  });

  it('runs one pull at a time: those asking while one runs share the next', async () => {
    let pulls = 0;
    let release!: () => void;
    const { s } = scheduler(() => {
      pulls++;
      return new Promise<number>((r) => (release = () => r(pulls)));
    });
    const first = s.pullNow();
    expect(s.pullNow()).toBe(first); // not started yet: the same pull
    await vi.advanceTimersByTimeAsync(0); // the first pull is running
    const [a, b] = [s.pullNow(), s.pullNow()];
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    release();
    expect(await first).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    release();
    expect(await a).toBe(2);
    expect(pulls).toBe(2);
    await s.close();
  });

  it('tells a pull whether only notifications asked for it: one a caller or the timer asked for, or joined, is not', async () => {
    const asked: boolean[] = [];
    const { s } = scheduler(async (why) => {
      asked.push(why.woken);
      return 0;
    });
    s.wake(); // after a quiet spell: at once
    await vi.advanceTimersByTimeAsync(0);
    s.wake(); // within the beat: the next one
    await vi.advanceTimersByTimeAsync(250);
    expect(asked).toEqual([true, true]);
    await vi.advanceTimersByTimeAsync(1_000); // a quiet spell
    s.wake();
    void s.pullNow(); // joins the pull the notification asked for: it is the caller's too
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([true, true, false]);
    await s.pullNow();
    await s.trigger();
    expect(asked).toEqual([true, true, false, false, false]);
    await s.close();
  });

  it('stops hearing notifications while a pull waits for the beat, and hears again before that pull reads', async () => {
    const log: string[] = [];
    const { s } = scheduler(
      async () => {
        log.push('pull');
        return 0;
      },
      {
        hold: () => void log.push('hold'),
        resume: async () => void log.push('resume'),
      },
    );
    s.wake(); // after a quiet spell: pulls at once, nothing to hold
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['resume', 'pull']);
    s.wake(); // within the beat: the next pull waits for it, so the notifications meanwhile tell nothing new
    s.wake();
    expect(log).toEqual(['resume', 'pull', 'hold']);
    await vi.advanceTimersByTimeAsync(250);
    expect(log).toEqual(['resume', 'pull', 'hold', 'resume', 'pull']);
    await s.close();
  });

  it('does not wait for a listener that never answers: the pull reads a second later', async () => {
    let pulls = 0;
    const { s } = scheduler(async () => ++pulls, {
      hold: () => undefined,
      resume: () => new Promise<void>(() => undefined),
    });
    void s.pullNow();
    await vi.advanceTimersByTimeAsync(999);
    expect(pulls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(pulls).toBe(1);
    await s.close();
  });

  it('after a refusal it retries on a doubling back-off and the status says so; a success clears it', async () => {
    let fail = true;
    let pulls = 0;
    const { s, status } = scheduler(async () => {
      pulls++;
      if (fail) throw new TeamSignInError('password authentication failed');
      return 0;
    });
    await s.trigger();
    expect(status.get().signInRefused).toBe(true);
    await vi.advanceTimersByTimeAsync(499);
    expect(pulls).toBe(1);
    await vi.advanceTimersByTimeAsync(1); // 500 ms: the first retry
    expect(pulls).toBe(2);
    fail = false;
    await vi.advanceTimersByTimeAsync(1_000); // the second waits twice as long
    expect(pulls).toBe(3);
    expect(status.get()).toMatchObject({ online: true, error: null, signInRefused: false });
    await s.close();
  });
});
