// team.intents (team migration 1): one row per merchant reference in the whole team, its unique key
// the guard that two desks never charge one intent. created_by and created_at are the database's.
import type { Queryable } from './connection.js';
import { date, maybe, onlyRow, rowMapper, text } from '../columns.js';

const creatorOf = rowMapper((r) => ({ created_at: date(r, 'created_at'), created_by: text(r, 'created_by') }));
const totalOf = rowMapper((r) => text(r, 'total'));

/** Inserts the intent; fails with 23505 on intents_pkey when the reference is taken. */
export async function insertIntent(
  db: Queryable,
  merchantReference: string,
  amountMinor: number,
  currency: string,
  description: string,
): Promise<{ created_at: Date; created_by: string }> {
  const r = await db.query(
    `INSERT INTO team.intents (merchant_reference, amount_minor, currency, description)
     VALUES ($1, $2, $3, $4) RETURNING created_at, created_by`,
    [merchantReference, amountMinor, currency, description],
  );
  return onlyRow(r.rows, creatorOf);
}

/** Who created the intent of `merchantReference`, and when; undefined when there is none. */
export async function selectIntentCreator(
  db: Queryable,
  merchantReference: string,
): Promise<{ created_by: string; created_at: Date } | undefined> {
  const r = await db.query('SELECT created_by, created_at FROM team.intents WHERE merchant_reference = $1', [
    merchantReference,
  ]);
  return maybe(r.rows[0], creatorOf);
}

/**
 * The team's charge guards for a new intent (team migration 12, team.guard_intent), in the transaction
 * that creates it: raises P0001 with a JSON DETAIL when the same card and amount were charged within
 * minutes (unless `confirmed`) or the amount would pass the daily limit; both null to skip that check.
 */
export async function guardIntent(
  db: Queryable,
  g: {
    merchantReference: string;
    amountMinor: number;
    currency: string;
    fingerprint: Buffer | null;
    confirmedRepeat: boolean;
    dayStart: Date | null;
    maxDailyMinor: number | null;
  },
): Promise<void> {
  await db.query('SELECT team.guard_intent($1, $2, $3, $4, $5, $6, $7)', [
    g.merchantReference,
    g.amountMinor,
    g.currency,
    g.fingerprint,
    g.confirmedRepeat,
    g.dayStart,
    g.maxDailyMinor,
  ]);
}

/** The team's total (minor units, as text) of the intents of `currency` since `since` that have not failed. */
export async function selectCollectedSince(db: Queryable, currency: string, since: Date): Promise<string> {
  const r = await db.query('SELECT team.collected_since($1, $2) AS total', [currency, since]);
  return onlyRow(r.rows, totalOf);
}
