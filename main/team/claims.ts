// A claim on an existing intent, granted by PostgreSQL (team migration 9, team.claim_intent) before a
// desk sends anything to the service for it. Only the intent's creator or an admin is granted one, and
// only while no other claim is open; a refusal says who holds the intent or who may claim it.
import { requestClaim } from '../store/pg/claims.js';
import { TeamError, translatePgError } from './errors.js';
import { queryableLogin, type Queryable } from './pool.js';

export interface Claim {
  merchantReference: string;
  claimedBy: string;
  claimedAt: number;
  /** When it ends on its own if no outcome is recorded before. */
  expiresAt: number;
}

export type ClaimRefusal =
  | { reason: 'held'; createdBy: string; heldBy: string; claimedAt: number; expiresAt: number }
  | { reason: 'not_allowed'; createdBy: string }
  | { reason: 'no_intent' };

/** The team database refused the claim; `refusal` says why, with the names it gave. */
export class ClaimRefusedError extends TeamError {
  override name = 'ClaimRefusedError';
  constructor(
    readonly merchantReference: string,
    readonly refusal: ClaimRefusal,
    message: string,
    code: string,
    options?: { cause?: unknown },
  ) {
    super(message, code, options);
  }
}

interface Detail {
  claim?: 'held' | 'not_allowed';
  created_by?: string;
  held_by?: string;
  claimed_at?: string;
  expires_at?: string;
}

function refusalOf(e: { code?: string; detail?: string }): ClaimRefusal | null {
  if (e.code === '42704') return { reason: 'no_intent' };
  let d: Detail;
  try {
    d = JSON.parse(e.detail ?? '') as Detail;
  } catch {
    return null;
  }
  if (e.code === '42501' && d.claim === 'not_allowed' && d.created_by)
    return { reason: 'not_allowed', createdBy: d.created_by };
  if (e.code === '55P03' && d.claim === 'held' && d.created_by && d.held_by && d.claimed_at && d.expires_at)
    return {
      reason: 'held',
      createdBy: d.created_by,
      heldBy: d.held_by,
      claimedAt: Date.parse(d.claimed_at),
      expiresAt: Date.parse(d.expires_at),
    };
  return null;
}

/** Asks PostgreSQL for a claim on `reference`; throws ClaimRefusedError when refused. */
export async function claimIntent(db: Queryable, reference: string): Promise<Claim> {
  try {
    const row = await requestClaim(db, reference);
    return {
      merchantReference: reference,
      claimedBy: row.claimed_by,
      claimedAt: row.claimed_at.getTime(),
      expiresAt: row.expires_at.getTime(),
    };
  } catch (e) {
    const pe = e as Error & { code?: string; detail?: string };
    const refusal = pe instanceof Error ? refusalOf(pe) : null;
    if (refusal) throw new ClaimRefusedError(reference, refusal, pe.message, pe.code!, { cause: e });
    throw translatePgError(e, `claim payment ${reference}`, queryableLogin(db));
  }
}
