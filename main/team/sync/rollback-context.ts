// What the parts of a desk's rollback watch (rollback.ts) share: the database, the desk's login and horizon,
// how it asks the team database, and how it says its state changed.
import type pg from 'pg';
import type { NewEvent } from '../../collections/event-rules.js';
import type { Ledger } from '../../collections/ledger.js';
import type { EventKind, EventSource, SignatureState } from '../../collections/model.js';
import type { HeldEventRow, OwnOutboxRow } from '../../store/sqlite/team/rollback.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { selectChainPoints, type ChainPointRow } from '../../store/pg/rollback.js';
import { type EventVerifier } from '../evidence.js';
import { toSafeInteger } from '../pool.js';
import type { ChainCheck } from './chain-check.js';
import type { OwnGuards } from '../own-guards.js';

/** What the parts of the rollback watch share. */
export interface RollbackContext {
  pool: pg.Pool;
  db: Db;
  ledger: Ledger;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** The login this desk signed in as: its own events are the ones it may put back unsigned. */
  login: string | null;
  /** How far back (ms) the desk looks for its own events the record may have lost. */
  horizonMs: number;
  chain: ChainCheck;
  verify: () => EventVerifier | undefined;
  onRebased?: ((applied: number) => void) | undefined;
  othersAfterMs?: number | undefined;
  /** The guard fingerprints of this desk's own charges of the last minutes (own-guards.ts), put back with their intents. */
  ownGuards?: OwnGuards | undefined;
  stopped: () => boolean;
  /** Runs a question to the team database, its failure in the sync's words. */
  ask<T>(doing: string, fn: () => Promise<T>): Promise<T>;
  /** The rollback's state changed (its row, or the lost list): told to the status. */
  changed(): void;
}

export const PAGE = 500;
export const KEYS_PAGE = 5_000;
/** Points of the journal compared with the record per question while looking for the common point. */
export const POINTS_PAGE = 2_000;

export async function pointsAt(ctx: RollbackContext, seqs: readonly number[]): Promise<Map<number, ChainPointRow>> {
  const { pool } = ctx;
  const rows = await ctx.ask('read the team record at the seqs this desk verified', () =>
    selectChainPoints(pool, seqs),
  );
  return new Map(rows.map((r) => [toSafeInteger(r.seq, 'seq'), r]));
}

/** A local event row as the ledger took it. */
export function localEvent(r: HeldEventRow | OwnOutboxRow, kind: string, extra: Partial<NewEvent> = {}): NewEvent {
  return {
    collectionId: r.collection_id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    source: r.source as EventSource,
    kind: kind as EventKind,
    status: r.status,
    receivedAt: r.received_at,
    signature: r.signature as SignatureState,
    amountMinor: r.amount_minor,
    currency: r.currency,
    payload: r.payload,
    note: r.note,
    actor: r.actor,
    ...extra,
  };
}
