// One proof that notifications arrive, for `connect` (no sync running): the checks of notify-probe.ts on a
// listening connection of its own.
import type pg from 'pg';
import { listen, type Listener } from '../listen.js';
import { poolTls } from '../pool.js';
import { notifyProbe } from './notify-probe.js';

/**
 * A listening connection of its own and the probe's checks on it (a second connection after a first probe
 * lost), until the first verdict. true: they arrive; false: they do not; null: could not
 * tell (the database could not be reached, or the pool has no URL).
 */
export async function proveNotifications(pool: pg.Pool, timeoutMs = 2_000): Promise<boolean | null> {
  const url = pool.options.connectionString;
  if (!url) return null;
  const quiet = { info() {}, warn() {} };
  let listener: Listener | null = null;
  let finish!: (v: boolean | null) => void;
  const done = new Promise<boolean | null>((resolve) => (finish = resolve));
  const probe = notifyProbe({
    pool,
    now: () => Date.now(),
    logger: quiet,
    timeoutMs,
    relisten: () => void open(),
    onVerdict: (arriving) => finish(arriving),
  });
  async function open(): Promise<void> {
    const old = listener;
    listener = null;
    await old?.close();
    try {
      listener = await listen(url!, () => undefined, {
        tls: poolTls(pool),
        probe: { channel: probe.channel, heard: (token) => probe.heard(token) },
      });
      probe.listening();
    } catch {
      finish(null);
    }
  }
  // Two probes and a new connection take a few seconds at most; past that the answer is "cannot tell".
  const giveUp = setTimeout(() => finish(null), 4 * timeoutMs + 5_000);
  void open();
  try {
    return await done;
  } finally {
    clearTimeout(giveUp);
    probe.close();
    // Set by open(), which TypeScript does not follow into the closure.
    await (listener as Listener | null)?.close();
  }
}
