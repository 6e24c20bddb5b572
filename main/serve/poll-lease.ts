// One poller among a team's `serve` instances (issue 31), decided by PostgreSQL: the poller lease (team
// migration 16). Every instance asks for it every third of its length; the one that holds it polls, the
// others stand by and take it over once it expires (the holder stopped, was killed or lost the database):
// within the lease's length and a third of it after the holder's last renewal.
//
// While the database cannot be reached, an instance does not know who holds the lease. It then polls
// anyway (issue 29: what it observed is kept and written when the database is back) unless the database
// told it, less than a lease ago, that another instance holds it. Every poll's write takes or renews the
// lease in its own statement and writes nothing when another instance holds it (poll-to-team.ts), so the
// service's balances and options reach the record from one instance, whichever polled meanwhile.
//
// Each time an instance becomes the poller it starts a new poller and sink: the sink remembers what it
// wrote to write only changes, and another instance may have written since, so a new tenure writes one
// full round, as a start does.
import os from 'node:os';
import crypto from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { PollerStatus } from '../poller/poller.js';
import type { PollerLeaseFence } from '../store/pg/balance-snapshots.js';
import { releasePollerLease, takePollerLease } from '../store/pg/poller-lease.js';
import { messageOf } from '../errors.shared.js';

const DEFAULT_LEASE_SECONDS = 15;

/** active: this instance polls; standby: another holds the lease; unknown: the database did not say (it polls). */
export type PollRole = 'active' | 'standby' | 'unknown';

export interface PollLeaseStatus {
  role: PollRole;
  /** This instance's id in the lease. */
  instance: string;
  /** Who holds the lease, as the database last said; null before it said. */
  holder: string | null;
}

/** A poller running for one tenure. */
export interface PollingRun {
  status(): PollerStatus;
  stop(): Promise<void>;
}

export interface PollLease {
  status(): PollLeaseStatus;
  /** The running poller's status; null while another instance polls. */
  poller(): PollerStatus | null;
  /** Stops polling and gives the lease back (a clean stop: another instance takes over at its next try). */
  close(): Promise<void>;
}

export interface PollLeaseOptions {
  pool: pg.Pool;
  leaseSeconds?: number;
  logger: Logger;
  /** Starts a poller for a new tenure, whose writes hold `fence`. */
  startPolling(fence: PollerLeaseFence): PollingRun;
  /** This instance's id (default: host, pid and a random part, new at each start). */
  instance?: string;
}

function instanceId(): string {
  return `${os.hostname().slice(0, 120)}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
}

export function startPollLease(o: PollLeaseOptions): PollLease {
  const seconds = o.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const instance = o.instance ?? instanceId();
  const fence: PollerLeaseFence = { instance, seconds };
  const log = o.logger;
  let role: PollRole | null = null;
  let holder: string | null = null;
  /** performance.now() until which the lease is ours (active) or another's (standby), as the database said. */
  let until = 0;
  let run: PollingRun | null = null;
  let stopping: Promise<void> | null = null;
  let ticking: Promise<void> | null = null;
  let closed = false;

  async function settle(next: PollRole): Promise<void> {
    if (next !== role) {
      if (next === 'active') log.info({ instance }, 'serve polls for the team (it holds the poller lease)');
      else if (next === 'standby') log.info({ instance, holder }, 'another serve instance polls for the team');
      else
        log.warn(
          { instance },
          'the team database does not say who polls: serve polls, and writes only if it holds the lease',
        );
    }
    role = next;
    if (next === 'standby') {
      if (run) {
        const r = run;
        run = null;
        stopping = r.stop();
        await stopping;
      }
    } else if (!run && !closed) {
      await stopping;
      run = o.startPolling(fence);
    }
  }

  async function tick(): Promise<void> {
    const sentAt = performance.now();
    try {
      const a = await takePollerLease(o.pool, instance, seconds);
      holder = a.holder;
      // Counted from when it was asked: the database's clock started the lease no earlier.
      until = sentAt + a.remainingMs;
      await settle(a.held ? 'active' : 'standby');
    } catch (e) {
      // Not an answer: what the database said last holds until that lease ends.
      if (role === null || performance.now() >= until) {
        if (role !== 'unknown')
          log.warn({ err: messageOf(e) }, 'serve cannot ask the team database for the poller lease');
        await settle('unknown');
      }
    }
  }

  const step = () => {
    if (closed || ticking) return;
    ticking = tick().finally(() => (ticking = null));
  };
  const timer = setInterval(step, Math.max(250, Math.round((seconds * 1000) / 3)));
  timer.unref?.();
  step();

  return {
    status: () => ({ role: role ?? 'unknown', instance, holder }),
    poller: () => run?.status() ?? null,
    async close() {
      closed = true;
      clearInterval(timer);
      await ticking;
      const r = run;
      run = null;
      await r?.stop();
      await stopping;
      if (role === 'active') await releasePollerLease(o.pool, instance).catch(() => false);
    },
  };
}
