// Team-wide intent-first: a charge's intent is committed here, under its unique merchant_reference,
// before initialize is sent, so two desktops can never charge the same intent. The intent row and
// its 'intent' event commit together, so every desktop learns of the intent through the event log.
// With guards, the same transaction first asks the database whether the team's repeat-charge question
// and daily limit let it through (team migration 12): it is refused with RepeatChargeError or
// DailyLimitError, and nothing is created.
import type pg from 'pg';
import { guardIntent, insertIntent, selectCollectedSince, selectIntentCreator } from '../store/pg/intents.js';
import { ReferenceTakenError, TeamError, TeamFieldError, translatePgError } from './errors.js';
import { appendEvents } from './events.js';
import { queryableLogin, withTransaction, type Queryable } from './pool.js';

export interface NewIntent {
  merchantReference: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** What the event log carries besides (customer, redirect URL, card brand and last four: never the card). */
  details?: Record<string, unknown>;
}

/** What the team's charge guards judge a new intent by (team.guard_intent). */
export interface IntentGuards {
  /**
   * The card, amount and currency as a keyed fingerprint (32 bytes of HMAC-SHA256 under the team's key,
   * collections/charge/fingerprint.ts), or null to skip the repeat question.
   */
  fingerprint: Buffer | null;
  /** The person was asked "Charge this card again?" and said yes. */
  confirmedRepeat: boolean;
  /** The daily limit: the start of the desk's day and the option's max_daily_amount; null to skip it. */
  daily: { dayStart: number; maxDailyMinor: number } | null;
}

/** The same card and amount were charged at a desk of the team within the repeat window. */
export class RepeatChargeError extends TeamError {
  override name = 'RepeatChargeError';
  constructor(
    readonly chargedBy: string,
    readonly chargedAt: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, 'P0001', options, 'conflict');
  }
}

/** The amount would pass the option's daily limit, counting every desk's intents of the day. */
export class DailyLimitError extends TeamError {
  override name = 'DailyLimitError';
  constructor(
    readonly currency: string,
    readonly collectedMinor: number,
    readonly maxDailyMinor: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, 'P0001', options, 'validation', 'amountMinor');
  }
}

interface GuardDetail {
  guard?: 'repeat' | 'daily_limit';
  charged_by?: string;
  charged_at?: string;
  collected?: number | string;
  max_daily?: number | string;
  currency?: string;
}

/** The guard's refusal as one of the errors above, or null when `e` is not one. */
function guardRefusal(e: unknown): TeamError | null {
  const pe = e as { code?: string; detail?: string; message?: string };
  if (pe?.code !== 'P0001' || !pe.detail) return null;
  let d: GuardDetail;
  try {
    d = JSON.parse(pe.detail) as GuardDetail;
  } catch {
    return null;
  }
  const message = pe.message ?? 'refused by the team database';
  if (d.guard === 'repeat' && d.charged_by && d.charged_at)
    return new RepeatChargeError(d.charged_by, Date.parse(d.charged_at), message, { cause: e });
  if (d.guard === 'daily_limit' && d.currency && d.collected !== undefined && d.max_daily !== undefined)
    return new DailyLimitError(d.currency, Number(d.collected), Number(d.max_daily), message, { cause: e });
  return null;
}

export interface CreatedIntent {
  merchantReference: string;
  createdAt: number;
  createdBy: string;
  /** The seq of its 'intent' event. */
  seq: number;
}

function check(intent: NewIntent): void {
  const ref = intent.merchantReference;
  if (typeof ref !== 'string' || ref.length < 1 || ref.length > 100) {
    throw new TeamFieldError('merchantReference', 'must be 1 to 100 characters');
  }
  if (!Number.isSafeInteger(intent.amountMinor) || intent.amountMinor <= 0) {
    throw new TeamFieldError(
      'amountMinor',
      `must be a positive integer number of minor units (got ${String(intent.amountMinor)})`,
    );
  }
  if (typeof intent.currency !== 'string' || !/^[A-Z]{3}$/.test(intent.currency)) {
    throw new TeamFieldError(
      'currency',
      `must be three capital letters, e.g. NGN (got ${JSON.stringify(intent.currency)})`,
    );
  }
  if (typeof intent.description !== 'string') throw new TeamFieldError('description', 'must be text');
}

/**
 * Commits the intent, or throws ReferenceTakenError naming who holds the reference; with `guards`, the
 * team's charge guards decide first (RepeatChargeError, DailyLimitError).
 */
export async function createIntent(pool: pg.Pool, intent: NewIntent, guards?: IntentGuards): Promise<CreatedIntent> {
  check(intent);
  try {
    return await withTransaction(pool, 'create an intent', async (client) => {
      if (guards) {
        try {
          await guardIntent(client, {
            merchantReference: intent.merchantReference,
            amountMinor: intent.amountMinor,
            currency: intent.currency,
            fingerprint: guards.fingerprint,
            confirmedRepeat: guards.confirmedRepeat,
            dayStart: guards.daily ? new Date(guards.daily.dayStart) : null,
            maxDailyMinor: guards.daily?.maxDailyMinor ?? null,
          });
        } catch (e) {
          throw guardRefusal(e) ?? e;
        }
      }
      const row = await insertIntent(
        client,
        intent.merchantReference,
        intent.amountMinor,
        intent.currency,
        intent.description,
      );
      const appended = await appendEvents(client, [
        {
          eventKey: `intent:${intent.merchantReference}`,
          merchantReference: intent.merchantReference,
          source: 'intent',
          kind: 'intent',
          status: 'INTENT',
          amountMinor: intent.amountMinor,
          currency: intent.currency,
          signature: 'not_applicable',
          payload: JSON.stringify({ description: intent.description, ...intent.details }),
          occurredAt: row.created_at.getTime(),
        },
      ]);
      return {
        merchantReference: intent.merchantReference,
        createdAt: row.created_at.getTime(),
        createdBy: row.created_by,
        seq: appended.stored[0]?.seq ?? 0,
      };
    });
  } catch (e) {
    if (e instanceof RepeatChargeError || e instanceof DailyLimitError) throw e;
    const cause = (e as { cause?: { code?: string; constraint?: string } }).cause;
    if (cause?.code === '23505' && cause.constraint === 'intents_pkey') {
      // The other intent has committed (a unique violation waits for it), so it can be read.
      const held = await selectIntentCreator(pool, intent.merchantReference).catch(() => undefined);
      throw new ReferenceTakenError(intent.merchantReference, held?.created_by, held?.created_at, { cause });
    }
    throw e;
  }
}

/**
 * The team's total (minor units) of the intents of `currency` created since `since` that have not
 * failed: what the daily limit counts (team.collected_since).
 */
export async function collectedSince(db: Queryable, currency: string, since: number): Promise<number> {
  try {
    return Number(await selectCollectedSince(db, currency, new Date(since)));
  } catch (e) {
    throw translatePgError(e, "read today's total of the team", queryableLogin(db));
  }
}
