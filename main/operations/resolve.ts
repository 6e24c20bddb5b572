// Resolving an exception or an orphan callback with a note: the one place its rules live (issue 28). The
// IPC handler (ipc/handlers/reconcile.ts) is a thin adapter over it.
//
// - The note: required, 3 to 2,000 characters (reconcile/resolve.ts checks it, with the open exception).
// - Who: on a team desk the signed-in login (what PostgreSQL records as the actor), on a solo desk the
//   operator name in Settings.
// - Where first: a team desk records the resolution in the team database before it stores it (refused
//   offline, or for a role that may not resolve: nothing is stored then). The database takes the one
//   decision two desks could race on (team migration 13): a resolution of a reference whose latest event
//   is already a resolution is refused. The desk is then told who resolved it, when and their note, and
//   pulls at once, so the screen shows that resolution instead.
// - What "open" means stays the desk's check on its own copy (the reconciliation rules are the desks').
import { words } from '../words/words.shared.js';
import type { Db } from '../store/sqlite/connection.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { Ledger } from '../collections/ledger.js';
import { prepareResolution, resolveException, ReconcileError, type ReconcileOptions } from '../reconcile/index.js';
import type { TeamFirstRecord, TeamFirstWhat } from '../team/record.js';
import { ResolutionTakenError, type StandingResolution } from '../team/resolutions.js';
import { standingResolutionOf } from '../store/sqlite/read/exception-detail.js';
import { collectionReference } from '../store/sqlite/reconcile/histories.js';
import { orphanByEventId } from '../store/sqlite/read/orphans.js';
import { deskActor } from './actor.js';

/** A team desk's way to record a person's fact in the team database first. */
export interface TeamFirstRecorder {
  /** The signed-in login: who resolves (PostgreSQL records it as the actor). */
  login: string;
  /** Records the events in the team database; an AppError in words when offline or not allowed. */
  recordFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<TeamFirstRecord>;
  /** Pulls the team record now (the desk's copy is behind it). */
  pullNow(): void;
}

export interface ResolveDeps {
  db: Db;
  /** The process's ledger: the resolution event is stored through it. */
  ledger: Ledger;
  reconcileOptions: ReconcileOptions;
  /** Who resolves on a solo desk: the operator name in Settings. */
  operatorName: string;
  /** A team desk (recorded team-first, as its login); null on a solo desk. */
  team: TeamFirstRecorder | null;
}

export interface ResolveRequest {
  /** The collection whose exception is resolved, or orphanEventId for a callback of an unknown reference. */
  collectionId?: number | undefined;
  orphanEventId?: number | undefined;
  note: string;
}

/** How a refusal's words name what was resolved, in each case. */
const RESOLVE_WHAT: TeamFirstWhat = { action: 'resolve exceptions', noun: 'resolution' };

/** The database's refusal in the words the person at the desk reads. */
function alreadyResolved(s: StandingResolution, field: 'collectionId' | 'orphanEventId'): ReconcileError {
  // When, as the window shows every moment (the English of logs and the CLI: the desk's local time).
  const said = { by: s.resolvedBy, reference: s.merchantReference, resolvedStamp: s.resolvedAt };
  return new ReconcileError(
    'conflict',
    s.note
      ? words('recon.err.alreadyResolvedNote', { ...said, note: s.note })
      : words('recon.err.alreadyResolved', said),
    field,
  );
}

/** The reference the request resolves, as this desk's copy has it. */
function referenceOf(db: Db, req: ResolveRequest): string | undefined {
  return req.collectionId !== undefined
    ? collectionReference(db, req.collectionId)?.merchant_reference
    : req.orphanEventId !== undefined
      ? orphanByEventId(db, req.orphanEventId)?.merchant_reference
      : undefined;
}

/** The resolution standing for the request's reference on this desk's copy (its newest event), or null. */
function standingOnThisDesk(db: Db, req: ResolveRequest): StandingResolution | null {
  const reference = referenceOf(db, req);
  const r = reference === undefined ? undefined : standingResolutionOf(db, reference);
  if (!r || !r.actor) return null;
  return { merchantReference: r.merchant_reference, resolvedBy: r.actor, resolvedAt: r.at, note: r.note, seq: 0 };
}

/** Resolves with the note; returns the resolution event's id on this desk. */
export async function resolve(deps: ResolveDeps, req: ResolveRequest): Promise<{ eventId: number }> {
  const actor = deskActor({ teamLogin: deps.team?.login ?? null, operatorName: deps.operatorName });
  if (!actor) throw new ReconcileError('validation', words('recon.err.noOperator'), 'operator');
  const input = {
    ...(req.collectionId !== undefined ? { collectionId: req.collectionId } : {}),
    ...(req.orphanEventId !== undefined ? { orphanEventId: req.orphanEventId } : {}),
    note: req.note,
    actor,
  };
  if (!deps.team) return resolveException(deps.ledger, deps.db, input, deps.reconcileOptions);

  // Checked on this desk's copy first (the note, an open exception), then decided by the team database.
  let ev: NewEvent;
  try {
    ev = prepareResolution(deps.db, input, deps.reconcileOptions);
  } catch (e) {
    // Another desk's resolution may have reached this copy between the person's click and this check:
    // then say whose it is, as the database would have.
    const standing = e instanceof ReconcileError && e.kind === 'conflict' ? standingOnThisDesk(deps.db, req) : null;
    if (standing) throw alreadyResolved(standing, req.collectionId !== undefined ? 'collectionId' : 'orphanEventId');
    throw e;
  }
  let recorded: TeamFirstRecord;
  try {
    recorded = await deps.team.recordFirst([ev], RESOLVE_WHAT);
  } catch (e) {
    if (e instanceof ResolutionTakenError) {
      deps.team.pullNow();
      const field = req.collectionId !== undefined ? 'collectionId' : 'orphanEventId';
      if (e.standing) throw alreadyResolved(e.standing, field);
      // Who and when could not be read (the database out of reach just then): this desk's copy may say.
      const here = standingOnThisDesk(deps.db, req);
      if (here) throw alreadyResolved(here, field);
      throw new ReconcileError(
        'conflict',
        words('recon.err.alreadyResolvedElsewhere', { reference: referenceOf(deps.db, req) ?? '' }),
        field,
      );
    }
    throw e;
  }
  return resolveException(
    deps.ledger,
    deps.db,
    { ...input, dedupeKey: recorded.events[0]!.dedupeKey! },
    deps.reconcileOptions,
  );
}
