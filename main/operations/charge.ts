// Taking a card payment, as a person does it at a desk (issue 28, "operations in one place"): charge,
// confirm a repeat, cancel one, send an UNKNOWN payment again. The steps (check, save, encrypt,
// initialize, the payment window) are the charge service's (collections/charge/); this module holds the
// rules around them that make it one person's operation at a desk among several:
//
// - Identity: each call carries the window's operation id, and what it tells the window
//   (payments.progress) is about that call's own collection only, from the moment its intent is
//   recorded, so a screen never takes another desk's payment for its own.
// - The actor: operations/actor.ts (the team login PostgreSQL records, else the Settings name).
// - The team-first write: a team desk commits the intent in the team database before anything is sent,
//   once the team's guards let it through (the repeat-charge question and the daily limit, team
//   migration 12), and a re-send needs the database's claim first (migration 9).
// - The refusal texts: what the person reads when the team database refused, before anything was sent.
//
// IPC handlers (ipc/handlers/collections.ts) are thin adapters over these functions.
import type { ChargeService, ChargeResult } from '../collections/charge/service.js';
import { words } from '../words/words.shared.js';
import type { ChargeProgress, TeamChargeSeam } from '../collections/charge/types.js';
import type { CardFields, CardForm } from '../collections/card-input.shared.js';
import { PaymentError } from '../collections/errors.js';
import {
  ReferenceTakenError,
  TeamError,
  TeamPermissionError,
  TeamUnavailableError,
  translatePgError,
} from '../team/errors.js';
import { claimIntent, ClaimRefusedError } from '../team/claims.js';
import { collectedSince, DailyLimitError, RepeatChargeError } from '../team/intents.js';
import type { TeamRole } from '../team/roles.shared.js';
import { recordIntent } from '../team/record.js';
import type { TeamSession } from '../team/session.js';

// ---- the operations ------------------------------------------------------------------------------

/** How one operation of the window moves: its own collection's reference and status. */
export interface PaymentProgress extends ChargeProgress {
  operationId: string;
}

export interface ChargeOperationDeps {
  /** The active workspace's charge steps. */
  service: Pick<ChargeService, 'charge' | 'confirmRepeat' | 'cancelRepeat' | 'resend'>;
  /** Tells the window how its operation moves (main's 'payment.progress', pushed as payments.progress). */
  progress: (p: PaymentProgress) => void;
}

interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** The progress of one operation, or none when the caller gave no id (nobody follows it). */
function follow(deps: ChargeOperationDeps, operationId: string | undefined) {
  return operationId ? { onProgress: (p: ChargeProgress) => deps.progress({ operationId, ...p }) } : {};
}

const withSignal = (o: CallOptions) => (o.signal ? { signal: o.signal } : {});

/** Charge: the form, card included, once. The card fields are overwritten before this answers. */
export function chargeCard(
  deps: ChargeOperationDeps,
  req: { operationId?: string | undefined; form: CardForm },
  o: CallOptions = {},
): Promise<ChargeResult> {
  return deps.service.charge(req.form, { ...withSignal(o), ...follow(deps, req.operationId) });
}

/** "Charge this card again?" answered yes: the held charge (its cipher, never the card) goes ahead. */
export function confirmRepeatCharge(
  deps: ChargeOperationDeps,
  req: { operationId?: string | undefined; token: string },
  o: CallOptions = {},
): Promise<ChargeResult> {
  return deps.service.confirmRepeat(req.token, { ...withSignal(o), ...follow(deps, req.operationId) });
}

/** "Charge this card again?" answered no: the held charge is forgotten. */
export function cancelRepeatCharge(deps: ChargeOperationDeps, req: { token: string }): null {
  deps.service.cancelRepeat(req.token);
  return null;
}

/** An UNKNOWN payment sent again with the same reference; the card typed again. */
export function resendPayment(
  deps: ChargeOperationDeps,
  req: { operationId?: string | undefined; reference: string; card: CardFields },
  o: CallOptions = {},
): Promise<ChargeResult> {
  return deps.service.resend(req.reference, req.card, { ...withSignal(o), ...follow(deps, req.operationId) });
}

// ---- a team desk's team-first write, claim and refusals -------------------------------------------

export interface TeamChargeDeps {
  /** The login this desk signs in as. */
  login: string;
  /** The signed-in session (its pool and sync), or null. */
  session(): TeamSession | null;
}

const OFFLINE_CHARGE = words('payment.team.offline');

/** A role as a sentence names it ("back office"). */
const roleId = (role: TeamRole) => `app.role.${role}` as const;

/**
 * The role the team database holds for this login now (an admin may have changed it since the desk last
 * read it; reading it also brings the desk's role up to date, team/standing.ts), or the role as last read
 * when the database cannot say (offline, or the login was just disabled: the session then ends).
 */
async function roleNow(s: TeamSession): Promise<TeamRole> {
  return (await s.standing.refresh()) ?? s.role;
}

/**
 * The team's charge seam (collections/charge/types.ts TeamChargeSeam): the intent committed team-wide
 * first under the team's guards, the claim before a re-send, today's team-wide total, and every refusal
 * in words for the person at the desk. Every refusal here comes before anything was sent.
 */
export function teamCharges(d: TeamChargeDeps): TeamChargeSeam {
  function requireSession(): TeamSession {
    const s = d.session();
    if (!s) throw new PaymentError('unavailable', words('payment.team.signIn', { login: d.login }));
    const wrong = s.wrongDatabase();
    if (wrong) throw new PaymentError('unavailable', words('errors.asIs', { text: wrong }));
    return s;
  }

  async function refusal(e: unknown, doing: string, s: TeamSession): Promise<Error> {
    const t = e instanceof TeamError ? e : translatePgError(e, doing, d.login);
    if (t instanceof ReferenceTakenError) {
      const reference = t.merchantReference;
      return new PaymentError(
        'conflict',
        t.createdBy
          ? words(t.createdAt ? 'payment.team.referenceTakenBy' : 'payment.team.referenceTakenByOnly', {
              reference,
              by: t.createdBy,
              ...(t.createdAt ? { createdAt: t.createdAt.getTime() } : {}),
            })
          : words('payment.team.referenceTaken', { reference }),
        'reference',
      );
    }
    if (t instanceof DailyLimitError) {
      const left = Math.max(0, t.maxDailyMinor - t.collectedMinor);
      const w = words('payment.team.dailyLimit', {
        leftMinor: left,
        dailyMinor: t.maxDailyMinor,
        currency: t.currency,
      });
      return new PaymentError('validation', w, 'amount', { amount: w });
    }
    if (t instanceof TeamPermissionError) {
      // Named as the database holds it now, not as this desk signed in.
      return new PaymentError(
        'forbidden',
        words('payment.team.mayNot', { login: d.login, roleId: roleId(await roleNow(s)) }),
      );
    }
    if (t instanceof TeamUnavailableError) return new PaymentError('unavailable', OFFLINE_CHARGE);
    return t;
  }

  /** A claim the team database refused, in words for the person at the desk (nothing was sent). */
  async function claimRefusal(e: ClaimRefusedError, s: TeamSession): Promise<PaymentError> {
    const ref = e.merchantReference;
    const r = e.refusal;
    if (r.reason === 'no_intent')
      return new PaymentError('not_found', words('payment.team.noPayment', { reference: ref }), 'reference');
    if (r.reason === 'not_allowed')
      return new PaymentError(
        'forbidden',
        words('payment.team.onlyCreator', {
          creator: r.createdBy,
          reference: ref,
          login: d.login,
          roleId: roleId(await roleNow(s)),
        }),
        'reference',
      );
    return new PaymentError(
      'conflict',
      words(r.heldBy === d.login ? 'payment.team.claimedSelf' : 'payment.team.claimed', {
        reference: ref,
        heldBy: r.heldBy,
        claimedAt: r.claimedAt,
        expiresAt: r.expiresAt,
      }),
      'reference',
    );
  }

  return {
    async recordIntent(intent, guards) {
      const s = requireSession();
      try {
        const { createdAt } = await recordIntent(s.pool, intent, {
          fingerprint: guards.fingerprint,
          confirmedRepeat: guards.confirmedRepeat,
          daily: { dayStart: guards.dayStart, maxDailyMinor: guards.maxDailyMinor },
        });
        // Only this desk has the fingerprint: kept (in memory, for the repeat window) so that a record
        // which loses this intent in a failover gets its guard back with it (team/own-guards.ts).
        if (guards.fingerprint)
          s.ownGuards.keep({
            merchantReference: intent.merchantReference,
            fingerprint: guards.fingerprint,
            chargedAt: createdAt,
            confirmedRepeat: guards.confirmedRepeat,
          });
        return { kind: 'recorded' };
      } catch (e) {
        if (e instanceof RepeatChargeError) return { kind: 'repeat', chargedBy: e.chargedBy, chargedAt: e.chargedAt };
        throw await refusal(e, 'create an intent', s);
      }
    },
    async claim(reference) {
      const s = requireSession();
      try {
        await claimIntent(s.pool, reference);
      } catch (e) {
        if (e instanceof ClaimRefusedError) throw await claimRefusal(e, s);
        throw await refusal(e, `claim payment ${reference}`, s);
      }
    },
    async collectedSince(currency, dayStart) {
      const s = d.session();
      if (!s || s.wrongDatabase()) return null;
      try {
        return await collectedSince(s.pool, currency, dayStart);
      } catch {
        return null; // offline: the desk's copy says what it can, and no charge can be taken anyway
      }
    },
    outboxAdded() {
      d.session()?.push.kick();
    },
  };
}
