// Applying pulled team rows to a desktop's SQLite: a pulled batch of events as a set, in ONE write
// transaction (the ledger's appendSet: the stored keys and the touched collections' projections read once,
// folded in memory in seq order, each touched collection written and reconciled once), with the witness
// journal of the batch (witness.ts), the chain head it reached and the seq (team_sync); balance snapshots
// and payment options through their stores' own write functions. Each batch commits with the seq it
// reached, so a crash never skips nor repeats a row.
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import type { Ledger } from '../../collections/ledger.js';
import { insertIntentCollection } from '../../collections/intent-row.js';
import { collectionIdsIn } from '../../store/sqlite/ledger/intent-rows.js';
import type { NewEvent } from '../../collections/event-rules.js';
import { recordBalanceRun } from '../../store/sqlite/balances.js';
import { recordProvidersRun } from '../../store/sqlite/payment-options.js';
import { setLastSeq } from '../../store/sqlite/team/sync-state.js';
import { keepWitnessed } from '../../store/sqlite/team/rollback.js';
import {
  collectionStatuses,
  setIntentOperator,
  type CollectionStatusRow,
} from '../../store/sqlite/team/applied-events.js';
import type { PaymentOption, WalletBalance } from '../../service/types.js';
import type { ChainedEvent, TeamEvent } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';
import { noteComeback } from './refold.js';
import { witnessRows } from './witness.js';

/** A collection created or given a new event by a batch, with its status after the batch. */
export type ChangedCollection = CollectionStatusRow;

export interface AppliedBatch {
  /** Events stored by this batch (the rest this desktop already had). */
  applied: number;
  /** Collections created or given a new event, with their status after the batch. */
  changed: ChangedCollection[];
  /** Events stored with no collection (orphan callbacks and their resolutions). */
  orphans: number;
}

export interface ApplyOptions {
  /** The ledger the events are appended through (each touched collection reconciled once per batch). */
  ledger: Ledger;
  /** A team desk's own check of each signed event (team/evidence.ts); none: the writers' word (tests). */
  verify?: EventVerifier | undefined;
  /** Journal each event as a witness (witness.ts), for this login's own events too; absent: no journal. */
  witness?: { login: string | null } | undefined;
  /** Written in the batch's transaction after its events (the chain head the batch reached). */
  alsoWrite?: (() => void) | undefined;
  /**
   * The id a collection this batch creates takes (a re-base: the id its reference had before, rebase.ts
   * keptCollectionIds); absent: the next one.
   */
  idFor?: ((merchantReference: string) => number) | undefined;
}

/**
 * The batch's events as the ledger takes them, each with its collection: an intent for a reference this
 * desktop does not know creates its collection first, in seq order, so an event before it in the batch
 * stays an orphan, as a local callback would.
 */
function withCollections(db: Db, events: readonly TeamEvent[], o: ApplyOptions): NewEvent[] {
  const known = collectionIdsIn(db, JSON.stringify([...new Set(events.map((e) => e.merchantReference))]));
  return events.map((tev) => {
    let id = known.get(tev.merchantReference);
    if (id === undefined) {
      const intent = intentFromTeamEvent(tev);
      if (intent) {
        id = insertIntentCollection(db, intent, o.idFor?.(tev.merchantReference) ?? null);
        known.set(tev.merchantReference, id);
      }
    }
    return { ...fromTeamEvent(tev, o.verify), collectionId: id ?? null };
  });
}

/**
 * Applies pulled events (seq order) as one set in ONE write transaction and records `upToSeq`. A
 * duplicate (a key this desk stored first: its own event coming back) stores nothing and is compared for
 * the refold (noteComeback); this desk's own intent takes the database's actor as its operator.
 */
export function applyEvents(
  db: Db,
  events: readonly ChainedEvent[] | readonly TeamEvent[],
  upToSeq: number,
  now: number,
  o: ApplyOptions,
): AppliedBatch {
  const touched = new Set<number>();
  let applied = 0;
  let orphans = 0;
  // The ledger's batch opens the write transaction itself (outside any other, the touched collections are
  // then reconciled by the set-based group route: reconcile/incremental.ts Reconciler.onceAfter).
  o.ledger.batch(db, () => {
    const evs = withCollections(db, events, o);
    const r = o.ledger.appendSet(db, evs);
    for (const id of r.touched) touched.add(id);
    evs.forEach((ev, i) => {
      if (r.ids[i] !== null) {
        applied++;
        if (ev.collectionId === null) orphans++;
        return;
      }
      // One this desk stored before the record had it: folded again after the pull when the record
      // placed or keeps it otherwise (sync/refold.ts).
      noteComeback(db, ev, now);
      // This desk's own intent, stored before PostgreSQL had it: the database's actor is who created it.
      const tev = events[i]!;
      if (ev.collectionId !== null && tev.source === 'intent' && setIntentOperator(db, ev.collectionId, tev.actor))
        touched.add(ev.collectionId);
    });
    if (o.witness) keepWitnessed(db, witnessRows(events as readonly ChainedEvent[], o.witness.login), now);
    setLastSeq(db, 'events', upToSeq, now);
    o.alsoWrite?.();
  });
  return { applied, changed: touched.size ? collectionStatuses(db, [...touched]) : [], orphans };
}

export interface TeamSnapshot {
  seq: number;
  observedAt: number;
  balance: WalletBalance;
}

/**
 * Applies pulled balance snapshots (seq order): snapshots observed at the same moment are one poll,
 * recorded as the local poller would record it; then the seq, in the same transaction.
 */
export function applySnapshots(db: Db, snapshots: readonly TeamSnapshot[], now: number): number {
  if (!snapshots.length) return 0;
  let changed = 0;
  writeTransaction(db, () => {
    for (let i = 0; i < snapshots.length;) {
      const at = snapshots[i]!.observedAt;
      const group: WalletBalance[] = [];
      while (i < snapshots.length && snapshots[i]!.observedAt === at) group.push(snapshots[i++]!.balance);
      changed += recordBalanceRun(db, { startedAt: at, finishedAt: at, result: { ok: true, value: group } }).changed;
    }
    setLastSeq(db, 'balance_snapshots', snapshots[snapshots.length - 1]!.seq, now);
  });
  return changed;
}

/** Replaces the local payment options with the team's newest list, and records its seq. */
export function applyPaymentOptions(
  db: Db,
  list: { seq: number; fetchedAt: number; options: readonly PaymentOption[] },
  now: number,
): void {
  writeTransaction(db, () => {
    recordProvidersRun(db, {
      startedAt: list.fetchedAt,
      finishedAt: list.fetchedAt,
      result: { ok: true, value: list.options },
    });
    setLastSeq(db, 'payment_option_lists', list.seq, now);
  });
}
