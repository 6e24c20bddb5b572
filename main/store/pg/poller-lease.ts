// team.poller_lease (team migration 16): which `serve` instance polls the service for the whole team.
// Written only through the two functions below (receiver logins may call them).
import type { Queryable } from './connection.js';
import { bool, onlyRow, rowMapper, text } from '../columns.js';

export interface PollerLeaseAnswer {
  /** Whether the instance that asked holds the lease now. */
  held: boolean;
  /** Who holds it (the instance's id), after the call. */
  holder: string;
  /** For how long it holds it still, by the database's clock (ms). */
  remainingMs: number;
}

const leaseAnswerOf = rowMapper<PollerLeaseAnswer>((r) => ({
  held: bool(r, 'held'),
  holder: text(r, 'holder'),
  remainingMs: Number(text(r, 'remaining_ms')),
}));
const releasedOf = rowMapper((r) => bool(r, 'released'));

/** Takes the lease for `instance` for `seconds`, or renews it; who holds it after. */
export async function takePollerLease(db: Queryable, instance: string, seconds: number): Promise<PollerLeaseAnswer> {
  const r = await db.query('SELECT held, holder, remaining_ms FROM team.take_poller_lease($1::text, $2::integer)', [
    instance,
    seconds,
  ]);
  return onlyRow(r.rows, leaseAnswerOf);
}

/** Gives the lease back when `instance` holds it (a clean stop); whether it did. */
export async function releasePollerLease(db: Queryable, instance: string): Promise<boolean> {
  const r = await db.query('SELECT team.release_poller_lease($1::text) AS released', [instance]);
  return onlyRow(r.rows, releasedOf);
}
