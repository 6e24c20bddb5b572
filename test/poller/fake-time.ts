// A controllable clock and a sleep tied to it: sleeps resolve only when the test advances the clock.
import type { Clock, Sleep } from '../../main/clock.js';

interface Timer {
  at: number;
  resolve: () => void;
}

export class FakeTime {
  now = 1_700_000_000_000;
  /** Every sleep asked for, in order (ms). */
  readonly requested: number[] = [];
  private timers: Timer[] = [];

  readonly clock: Clock = { now: () => this.now };

  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      this.requested.push(ms);
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.now + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });

  /** Moves the clock forward by `ms`, waking every sleep that falls due, in order. */
  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = due.at;
      due.resolve();
    }
    this.now = target;
  }

  /** The wake-up times of pending sleeps. */
  pending(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }
}
