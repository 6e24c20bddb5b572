// Applying pulled team rows to a desktop's SQLite: events through the one local path (appendEvent,
// idempotent by dedupe key, with the incremental reconciliation run once per batch), balance
// snapshots and payment options through their stores' own write functions. Each batch commits with
// the seq it reached (team_sync), so a crash never skips nor repeats a row.
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { appendBatch, appendEvent } from '../../collections/ledger.js';
import { collectionIdByReference, insertIntentCollection } from '../../collections/intent-row.js';
import { recordBalanceRun } from '../../store/sqlite/balances.js';
import { recordProvidersRun } from '../../store/sqlite/payment-options.js';
import { setLastSeq } from '../../store/sqlite/team/sync-state.js';
import {
  collectionStatuses,
  setIntentOperator,
  type CollectionStatusRow,
} from '../../store/sqlite/team/applied-events.js';
import type { PaymentOption, WalletBalance } from '../../service/types.js';
import type { TeamEvent } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';
import { noteComeback } from './refold.js';

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

/**
 * Applies pulled events (seq order) in ONE write transaction and records `upToSeq`. An intent for a
 * reference this desktop does not know creates its collection first; any other event for an unknown
 * reference is stored as an orphan, as a local callback would be.
 */
export function applyEvents(
  db: Db,
  events: readonly TeamEvent[],
  upToSeq: number,
  now: number,
  /** A team desk's own check of each signed event (team/evidence.ts); none: the writers' word (tests). */
  verify?: EventVerifier,
): AppliedBatch {
  const lookup = collectionIdByReference(db);
  const touched = new Set<number>();
  let applied = 0;
  let orphans = 0;
  appendBatch(db, () => {
    for (const tev of events) {
      let id = lookup.get(tev.merchantReference) as number | undefined;
      if (id === undefined) {
        const intent = intentFromTeamEvent(tev);
        if (intent) id = insertIntentCollection(db, intent);
      }
      const ev = { ...fromTeamEvent(tev, verify), collectionId: id ?? null };
      const r = appendEvent(db, ev);
      if (r.inserted) {
        applied++;
        if (id !== undefined) touched.add(id);
        else orphans++;
      } else {
        // One this desk stored before the record had it: folded again after the pull when the record
        // placed or keeps it otherwise (sync/refold.ts).
        noteComeback(db, ev, now);
        // This desk's own intent, stored before PostgreSQL had it: the database's actor is who created it.
        if (id !== undefined && tev.source === 'intent' && setIntentOperator(db, id, tev.actor)) touched.add(id);
      }
    }
    setLastSeq(db, 'events', upToSeq, now);
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
