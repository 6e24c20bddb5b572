// Wakes a desktop when any writer commits events: LISTEN on its own connection (a pooled one would
// be handed to other work and lose the subscription). A notification carries the highest new seq; it
// may be lost (connection drop, desktop asleep), so the caller also pulls on a timer; behind a pool in
// transaction mode none arrives at all, which the caller finds out by a probe (sync/notify-probe.ts).
import pg from 'pg';
import { EVENTS_CHANNEL, listenForEvents } from '../store/pg/events.js';
import { listenForProbe } from '../store/pg/notify-probe.js';
import { translatePgError } from './errors.js';
import { loginOf } from './pool.js';
import { DEFAULT_TLS, pgConnectionConfig, type TeamTls } from './tls.js';

export interface Listener {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** The connection failed after it was listening: listen again (and pull, to cover the gap). */
  onError?: (err: Error) => void;
  /** TLS to the server: the pool's (poolTls), so both connections are checked alike. */
  tls?: TeamTls;
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
    if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
    const seq = Number(msg.payload);
    if (Number.isSafeInteger(seq)) onSeq(seq);
  });
  try {
    await client.connect();
    await listenForEvents(client);
    if (options.probe) await listenForProbe(client, options.probe.channel);
  } catch (e) {
    closing = true;
    await client.end().catch(() => undefined);
    throw translatePgError(e, 'listen for new events', loginOf(url));
  }
  return {
    async close() {
      closing = true;
      await client.end().catch(() => undefined);
    },
  };
}
