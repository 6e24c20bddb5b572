// Team-wide intent-first: a charge's intent is committed here, under its unique merchant_reference,
// before initialize is sent, so two desktops can never charge the same intent. The intent row and
// its 'intent' event commit together, so every desktop learns of the intent through the event log.
import type pg from 'pg';
import { insertIntent, selectIntentCreator } from '../store/pg/intents.js';
import { ReferenceTakenError, TeamFieldError } from './errors.js';
import { appendEvents } from './events.js';
import { withTransaction } from './pool.js';

export interface NewIntent {
  merchantReference: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** What the event log carries besides (customer, redirect URL, card brand and last four: never the card). */
  details?: Record<string, unknown>;
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

/** Commits the intent, or throws ReferenceTakenError naming who holds the reference. */
export async function createIntent(pool: pg.Pool, intent: NewIntent): Promise<CreatedIntent> {
  check(intent);
  try {
    return await withTransaction(pool, 'create an intent', async (client) => {
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
    const cause = (e as { cause?: { code?: string; constraint?: string } }).cause;
    if (cause?.code === '23505' && cause.constraint === 'intents_pkey') {
      // The other intent has committed (a unique violation waits for it), so it can be read.
      const held = await selectIntentCreator(pool, intent.merchantReference).catch(() => undefined);
      throw new ReferenceTakenError(intent.merchantReference, held?.created_by, held?.created_at, { cause });
    }
    throw e;
  }
}
