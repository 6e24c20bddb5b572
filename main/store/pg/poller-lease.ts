// team.poller_lease (team migration 16): which `serve` instance polls the service for the whole team.
// Written only through the two functions below (receiver logins may call them).
import type { Queryable } from './connection.js';

export interface PollerLeaseAnswer {
  /** Whether the instance that asked holds the lease now. */
  held: boolean;
  /** Who holds it (the instance's id), after the call. */
  holder: string;
  /** For how long it holds it still, by the database's clock (ms). */
  remainingMs: number;
}

/** Takes the lease for `instance` for `seconds`, or renews it; who holds it after. */
export async function takePollerLease(db: Queryable, instance: string, seconds: number): Promise<PollerLeaseAnswer> {
  const r = await db.query<{ held: boolean; holder: string; remaining_ms: string }>(
    'SELECT held, holder, remaining_ms FROM team.take_poller_lease($1::text, $2::integer)',
    [instance, seconds],
  );
  const row = r.rows[0]!;
  return { held: row.held, holder: row.holder, remainingMs: Number(row.remaining_ms) };
}

/** Gives the lease back when `instance` holds it (a clean stop); whether it did. */
export async function releasePollerLease(db: Queryable, instance: string): Promise<boolean> {
  const r = await db.query<{ released: boolean }>('SELECT team.release_poller_lease($1::text) AS released', [instance]);
  return r.rows[0]!.released;
}
