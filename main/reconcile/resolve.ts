// The resolve command: a person resolves an exception or an orphan callback with a required note. It
// appends a 'resolution' event (source manual) through the ledger and never changes an earlier event;
// the checks (a note, who, an open exception or an unresolved orphan) are here, the statements in the
// store (store/sqlite/exceptions-resolve.ts, read/orphans.ts).
import { words } from '../words/words.shared.js';
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { eventIdByDedupeKey, internalReferenceOf } from '../store/sqlite/exceptions-resolve.js';
import { orphanByEventId } from '../store/sqlite/read/orphans.js';
import { ReconcileError } from './errors.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { Ledger } from '../collections/ledger.js';
import { reconcileCollection, requireCollection, type ReconcileOptions } from './reconcile.js';

export interface ResolveInput {
  /** The collection to resolve, or orphanEventId for a callback with an unknown reference. */
  collectionId?: number;
  orphanEventId?: number;
  note: string;
  actor: string;
  /** The event's key when it was first recorded elsewhere (a team desk records it in the team database first). */
  dedupeKey?: string;
}

function checkedNoteAndActor(input: ResolveInput): { note: string; actor: string } {
  const note = typeof input.note === 'string' ? input.note.trim() : '';
  if (note.length < 3) throw new ReconcileError('validation', words('recon.err.note'), 'note');
  if (note.length > 2000) throw new ReconcileError('validation', words('recon.err.noteLong'), 'note');
  const actor = typeof input.actor === 'string' ? input.actor.trim() : '';
  if (!actor) throw new ReconcileError('validation', words('recon.err.actor'), 'actor');
  return { note, actor };
}

/** The resolution event for `input`, or why there is none; runs inside the caller's write transaction. */
function resolutionEvent(db: Db, input: ResolveInput, options: ReconcileOptions, now: number): NewEvent {
  const { note, actor } = checkedNoteAndActor(input);
  // What every resolution says, whichever collection or orphan it is about.
  const resolution = {
    source: 'manual',
    kind: 'resolution',
    status: null,
    receivedAt: now,
    signature: 'not_applicable',
    note,
    actor,
  } as const;
  if (input.collectionId !== undefined) {
    const c = requireCollection(db, input.collectionId);
    const current = reconcileCollection(db, c.id, { ...options, now });
    if (!current?.isException) {
      throw new ReconcileError(
        'conflict',
        words('recon.err.noException', { reference: c.merchant_reference }),
        'collectionId',
      );
    }
    return {
      ...resolution,
      collectionId: c.id,
      merchantReference: c.merchant_reference,
      internalReference: internalReferenceOf(db, c.id),
    };
  }
  if (input.orphanEventId !== undefined) {
    const o = orphanByEventId(db, input.orphanEventId);
    if (!o)
      throw new ReconcileError(
        'not_found',
        words('recon.err.noOrphan', { id: String(input.orphanEventId) }),
        'orphanEventId',
      );
    if (o.resolved_by_event_id !== null) {
      throw new ReconcileError(
        'conflict',
        words('recon.err.orphanResolved', { reference: o.merchant_reference }),
        'orphanEventId',
      );
    }
    return {
      ...resolution,
      collectionId: null,
      merchantReference: o.merchant_reference,
      internalReference: o.internal_reference,
    };
  }
  throw new ReconcileError('validation', words('recon.err.which'), 'collectionId');
}

/**
 * The resolution resolveException would append, checked the same way but not stored (the collection's
 * reconciliation is brought up to date to check it): a team desk records it in the team database first.
 */
export function prepareResolution(db: Db, input: ResolveInput, options: ReconcileOptions = {}): NewEvent {
  checkedNoteAndActor(input);
  const now = options.now ?? Date.now();
  return writeTransaction(db, () => resolutionEvent(db, input, options, now));
}

/**
 * A person resolves an exception. The note is required. Appends a 'resolution' event (source manual);
 * never changes an earlier event, stored through `ledger` (the process's). Returns the new event id.
 */
export function resolveException(
  ledger: Pick<Ledger, 'append'>,
  db: Db,
  input: ResolveInput,
  options: ReconcileOptions = {},
): { eventId: number } {
  checkedNoteAndActor(input);
  const now = options.now ?? Date.now();
  return writeTransaction(db, () => {
    // A team desk records the resolution in the team database first; its own sync may have pulled that
    // copy back and stored it already (the notification can beat this call): then it is this resolution.
    if (input.dedupeKey) {
      const stored = eventIdByDedupeKey(db, input.dedupeKey);
      if (stored !== undefined) return { eventId: stored };
    }
    const ev = resolutionEvent(db, input, options, now);
    const r = ledger.append(db, input.dedupeKey ? { ...ev, dedupeKey: input.dedupeKey } : ev);
    if (ev.collectionId !== null) reconcileCollection(db, ev.collectionId, { ...options, now });
    return { eventId: r.eventId };
  });
}
