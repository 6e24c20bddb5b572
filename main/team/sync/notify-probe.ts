// Notifications that are proven, not assumed (issue 29). A desk's LISTEN connection can be up and
// receive nothing: behind PgBouncer in transaction mode the LISTEN runs on whichever server connection the
// pooler lends for that one statement, and the notifications later arrive on a server connection no
// client holds (PgBouncer logs "got packet 'A' from server when not linked" and drops them); a NAT or
// firewall can also drop an idle connection without either end hearing of it. Either way the desk would
// say "Online" and show other desks' work only at its periodic pull.
//
// So the desk proves it: on a channel of its own (store/pg/notify-probe.ts) it sends a NOTIFY with a
// random token through its pool, as every writer's commit notifies, and must hear the token back on its
// listening connection within a short time. Checked at once on every new listening connection, then every
// minute. A first probe lost replaces the listening connection (a quietly dead one comes back that way)
// and checks again at once; a second means notifications do not arrive: the status says so, and the sync
// pulls every second meanwhile (listener.ts). While they do not arrive, a new listening connection is tried
// every 15 s, so a fix (a session-mode pool) is noticed without a restart.
import crypto from 'node:crypto';
import type pg from 'pg';
import { sendProbe } from '../../store/pg/notify-probe.js';

export interface NotifyProbeOptions {
  pool: pg.Pool;
  now: () => number;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** How long a probe may take to come back before it counts as lost (default 2 s). */
  timeoutMs?: number;
  /** Between checks while notifications arrive (default 60 s). */
  everyMs?: number;
  /** Between new listening connections while they do not (default 15 s). */
  retryEveryMs?: number;
  /** Replace the listening connection: close it and open a new one (which calls listening()). */
  relisten(): void;
  /** The verdict changed: true, they arrive; false, they do not. */
  onVerdict(arriving: boolean, at: number): void;
}

export interface NotifyProbe {
  /** The channel the listening connection also LISTENs on (listen.ts `probe`). */
  readonly channel: string;
  /** The listening connection heard `payload` on the channel. */
  heard(payload: string): void;
  /** A listening connection is up (new, or again): check it now, then periodically. */
  listening(): void;
  /** The listening connection is gone: nothing is checked until the next one. */
  notListening(): void;
  close(): void;
}

/** The token a check waits for, and what it calls when heard. */
interface Expecting {
  token: string;
  heard(): void;
}

/**
 * Sends a probe on `channel` and waits for it: true heard, false lost, null not sent (the database did not
 * take it). `expect` says which token the listening connection should hand to heard(), null once settled.
 */
async function probeOnce(
  o: Pick<NotifyProbeOptions, 'pool' | 'logger'>,
  channel: string,
  timeoutMs: number,
  expect: (e: Expecting | null) => void,
): Promise<boolean | null> {
  const token = crypto.randomBytes(12).toString('hex');
  let settle!: (heard: boolean) => void;
  const heard = new Promise<boolean>((resolve) => (settle = resolve));
  // Expected before it is sent: on a direct connection the echo can come before the send returns.
  expect({ token, heard: () => settle(true) });
  let wait: NodeJS.Timeout | undefined;
  try {
    await sendProbe(o.pool, channel, token);
    // The time allowed starts once the pool has sent it (a slow connect of the pool is not the listener's).
    wait = setTimeout(() => settle(false), timeoutMs);
    wait.unref?.();
    return await heard;
  } catch (e) {
    o.logger.warn({ err: e }, 'team sync: could not send the notification probe; checking again later');
    return null;
  } finally {
    clearTimeout(wait);
    expect(null);
  }
}

export function notifyProbe(o: NotifyProbeOptions): NotifyProbe {
  const timeoutMs = o.timeoutMs ?? 2_000;
  const everyMs = o.everyMs ?? 60_000;
  const retryEveryMs = o.retryEveryMs ?? 15_000;
  const channel = `team_probe_${crypto.randomBytes(8).toString('hex')}`;
  let verdict: boolean | null = null;
  /** Probes lost in a row. */
  let lost = 0;
  let up = false;
  let closed = false;
  let checking = false;
  /** Counts listening connections, so a check that outlived its connection is not taken for the next one's. */
  let connection = 0;
  let timer: NodeJS.Timeout | undefined;
  /** The token the running check waits for, and what it calls when heard. */
  let expecting: Expecting | null = null;

  function later(ms: number, fn: () => void): void {
    clearTimeout(timer);
    if (closed) return;
    timer = setTimeout(fn, ms);
    timer.unref?.();
  }

  function decide(arriving: boolean): void {
    if (verdict === arriving) return;
    verdict = arriving;
    if (arriving) o.logger.info({}, 'team sync: notifications from the team database arrive');
    else
      o.logger.warn(
        {},
        'team sync: notifications from the team database do not arrive (a transaction-mode pool?): pulling every second',
      );
    o.onVerdict(arriving, o.now());
  }

  async function check(): Promise<void> {
    if (closed || !up || checking) return;
    checking = true;
    const on = connection;
    let result: boolean | null;
    try {
      result = await probeOnce(o, channel, timeoutMs, (e) => (expecting = e));
    } finally {
      checking = false;
    }
    if (closed) return;
    // The listening connection was replaced meanwhile: the new one is checked instead.
    if (on !== connection) return later(0, () => void check());
    if (result === null) return later(retryEveryMs, () => void check());
    if (result) {
      lost = 0;
      decide(true);
      return later(everyMs, () => void check());
    }
    lost++;
    if (lost === 1) {
      // Maybe only this connection died quietly: a new one is checked at once.
      up = false;
      o.relisten();
      return;
    }
    decide(false);
    later(retryEveryMs, () => {
      up = false;
      o.relisten();
    });
  }

  return {
    channel,
    heard(payload) {
      if (expecting && payload === expecting.token) expecting.heard();
    },
    listening() {
      if (closed) return;
      up = true;
      connection++;
      later(0, () => void check());
    },
    notListening() {
      up = false;
      connection++;
      clearTimeout(timer);
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
