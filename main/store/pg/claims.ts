// team.claims (team migration 9): a claim is granted, or refused, by team.claim_intent alone; a refusal
// comes back as pg's error, its SQLSTATE and detail saying why (main/team/claims.ts reads them).
import type { Queryable } from './connection.js';
import { date, onlyRow, rowMapper, text } from '../columns.js';

const claimOf = rowMapper((r) => ({
  claimed_by: text(r, 'claimed_by'),
  claimed_at: date(r, 'claimed_at'),
  expires_at: date(r, 'expires_at'),
}));

/** Asks for a claim on the intent of `merchantReference`; the claim granted. */
export async function requestClaim(
  db: Queryable,
  merchantReference: string,
): Promise<{ claimed_by: string; claimed_at: Date; expires_at: Date }> {
  const r = await db.query('SELECT claimed_by, claimed_at, expires_at FROM team.claim_intent($1)', [merchantReference]);
  return onlyRow(r.rows, claimOf);
}
