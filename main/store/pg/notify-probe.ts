// The probe that proves a desk's notifications arrive (team/sync/notify-probe.ts): the desk LISTENs on a
// channel of its own on its listening connection, and sends a NOTIFY with a random token there through its
// pool. NOTIFY and LISTEN need no grant (pg_notify is executable by PUBLIC unless an administrator
// revoked it), so every operator's login may probe; nobody else listens on a desk's channel.
import type pg from 'pg';
import type { Queryable } from './connection.js';

/** A desk's probe channel: `team_probe_` and 16 hex digits (an identifier, so it is never quoted). */
const PROBE_CHANNEL = /^team_probe_[0-9a-f]{16}$/;

function checked(channel: string): string {
  if (!PROBE_CHANNEL.test(channel)) throw new Error(`not a probe channel: ${JSON.stringify(channel)}`);
  return channel;
}

/** Subscribes `client` (the listening connection) to the probe channel too. */
export async function listenForProbe(client: pg.Client, channel: string): Promise<void> {
  await client.query(`LISTEN ${checked(channel)}`);
}

/** Sends `token` on the probe channel (through the pool: what a transaction-mode pool would break). */
export async function sendProbe(db: Queryable, channel: string, token: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [checked(channel), token]);
}
