// Wakes a desktop when any writer commits events, or when an admin changes an operator: LISTEN on its
// own connection (a pooled one would be handed to other work and lose the subscription), one connection
// for every channel. An events notification carries the highest new seq, an operators one the login
// whose row changed (team migration 14). Either may be lost (connection drop, desktop asleep), so the
// caller also pulls, and re-reads its operator, on a timer; behind a pool in transaction mode none
// arrives at all, which the caller finds out by a probe (sync/notify-probe.ts).
import pg from 'pg';
import { EVENTS_CHANNEL, listenForEvents, unlistenForEvents } from '../store/pg/events.js';
import { listenForOperatorChanges, OPERATORS_CHANNEL } from '../store/pg/operators.js';
import { listenForProbe } from '../store/pg/notify-probe.js';
import { translatePgError } from './errors.js';
import { loginOf } from './pool.js';
import { DEFAULT_TLS, pgConnectionConfig, type TeamTls } from './tls.js';

export interface Listener {
  /**
   * Stops hearing about new events until resume() (operators and the probe are still heard): while a pull
   * is already due, each notification is work for nothing (sync/scheduler.ts says when).
   */
  hold(): void;
  /** Hears about new events again; resolves once PostgreSQL listens (at once when not held). */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** The connection failed after it was listening: listen again (and pull, to cover the gap). */
  onError?: (err: Error) => void;
  /** TLS to the server: the pool's (poolTls), so both connections are checked alike. */
  tls?: TeamTls;
  /** An operator's row changed (added, disabled, enabled, re-roled, new password): their login. */
  onOperator?: (login: string) => void;
  /** Also listen on this desk's probe channel (sync/notify-probe.ts), which proves notifications arrive. */
  probe?: { channel: string; heard(payload: string): void };
}

export async function listen(
  url: string,
  onSeq: (seq: number) => void,
  options: ListenOptions = {},
): Promise<Listener> {
  const client = new pg.Client({
    ...pgConnectionConfig(url, options.tls ?? DEFAULT_TLS),
    application_name: 'merchant-desk listen',
    connectionTimeoutMillis: 10_000,
  });
  let closing = false;
  client.on('error', (err) => {
    if (!closing) options.onError?.(translatePgError(err, 'listen for new events', loginOf(url)));
  });
  client.on('notification', (msg) => {
    if (options.probe && msg.channel === options.probe.channel) return options.probe.heard(msg.payload ?? '');
    if (!msg.payload) return;
    if (msg.channel === OPERATORS_CHANNEL) {
      options.onOperator?.(msg.payload);
      return;
    }
    if (msg.channel !== EVENTS_CHANNEL) return;
    const seq = Number(msg.payload);
    if (Number.isSafeInteger(seq)) onSeq(seq);
  });
  try {
    await client.connect();
    await listenForEvents(client);
    if (options.onOperator) await listenForOperatorChanges(client);
    if (options.probe) await listenForProbe(client, options.probe.channel);
  } catch (e) {
    closing = true;
    await client.end().catch(() => undefined);
    throw translatePgError(e, 'listen for new events', loginOf(url));
  }
  // A failed UNLISTEN or LISTEN is the connection failing: its 'error' says so (onError), not this.
  let held = false;
  return {
    hold() {
      if (held || closing) return;
      held = true;
      unlistenForEvents(client).catch(() => undefined);
    },
    async resume() {
      if (!held || closing) return;
      held = false;
      await listenForEvents(client).catch(() => undefined);
    },
    async close() {
      closing = true;
      await client.end().catch(() => undefined);
    },
  };
}
