// The sandbox clock: a base clock plus an offset that the test controls advance. The offset is
// remembered in the state so clearing, expiry and flips keep their meaning across restarts.
import { systemClock, type Clock } from '../main/clock.js';
import { getMeta, setMeta, type SandboxDb } from './store.js';

export class SandboxClock implements Clock {
  private offset: number;
  constructor(
    private readonly db: SandboxDb,
    private readonly base: Clock = systemClock,
  ) {
    this.offset = Number(getMeta(db, 'clock_offset_ms') ?? '0') || 0;
  }
  now(): number {
    return this.base.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
    setMeta(this.db, 'clock_offset_ms', String(this.offset));
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
