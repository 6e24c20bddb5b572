// Two desktops on one team database, as the team profile will run them: each with its own SQLite file
// and a TeamSync, charging intent-first (team record, then the local copy with the same keys).
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import type { NewTeamEvent } from '../../main/team/events.js';
import { recordEvents, recordIntent, withTeamKey, type TeamIntent } from '../../main/team/record.js';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { startTeamSync, type TeamSync, type TeamSyncOptions } from '../../main/team/sync/pull.js';
import { poolLogin } from '../../main/team/pool.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

export const quietLogger = { info() {}, warn() {} };

export interface Desk {
  db: Db;
  pool: pg.Pool;
  sync: TeamSync;
  close(): Promise<void>;
}

export function openDesk(pool: pg.Pool, over: Partial<TeamSyncOptions> = {}): Desk {
  const dir = fileTempDir('md-teamsync-');
  const db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
  const sync = startTeamSync({
    pool,
    db,
    ledger,
    clock: systemClock,
    logger: quietLogger,
    pollEveryMs: 60_000,
    ...over,
  });
  return {
    db,
    pool,
    sync,
    async close() {
      await sync.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let n = 0;
export interface NewDesk {
  db: Db;
  /** How it started: from the team's snapshot, or null when it replayed the events. */
  from: string | null;
  /** The reasons of the warnings its sync logged. */
  warnings: string[];
}

/** A new desk caught up once (from the snapshot unless `snapshots: false`), its signatures checked, its sync closed. */
export async function newDeskCaughtUp(pool: pg.Pool, over: Partial<TeamSyncOptions> = {}): Promise<NewDesk> {
  const db = openDatabase(path.join(fileTempDir('md-newdesk-'), 'desk.sqlite'));
  let from: string | null = null;
  const warnings: string[] = [];
  const sync = startTeamSync({
    pool,
    db,
    ledger,
    clock: systemClock,
    logger: { info() {}, warn: (o: object) => void warnings.push(String((o as { reason?: string }).reason ?? '')) },
    pollEveryMs: 600_000,
    onCopied: (_n, f) => {
      from = f;
    },
    ...over,
  });
  await sync.pullNow();
  // Signatures taken from a snapshot are re-checked in the background: the desk is compared once done.
  await sync.checkSignatures();
  await sync.close();
  return { db, from, warnings };
}

export function newIntent(over: Partial<TeamIntent> = {}): TeamIntent {
  n++;
  return {
    merchantReference: `MD-TEAM-${process.pid}-${Date.now().toString(36)}-${n}`,
    createdAt: Date.now(),
    amountMinor: 150_000 + n,
    currency: 'UGX',
    description: `Phone order ${n}`,
    customerName: 'Amina Hassan',
    customerEmail: n % 2 ? 'amina@example.com' : null,
    chargeCustomer: n % 3 === 0,
    allowFinalStatusChange: true,
    operator: 'Ann',
    providerCode: 'CARD_UGX',
    redirectUrl: 'https://merchant-desk.invalid/return',
    cardBrand: 'visa',
    cardLast4: '4242',
    ...over,
  };
}

/** What the charge path does on a team desktop: the team's intent first, then the local copy. */
export async function chargeOn(desk: Desk, given = newIntent()): Promise<{ id: number; intent: TeamIntent }> {
  // A team desk's operator is its login (what PostgreSQL records as the actor), as the app charges.
  const intent = { ...given, operator: poolLogin(desk.pool)! };
  await recordIntent(desk.pool, intent);
  const ref = intent.merchantReference;
  const id = saveIntentCollection(ledger, desk.db, intent);
  await writeLocal(desk, initializeAccepted(id, ref));
  return { id, intent };
}

/** What the service answers a charge's initialize: accepted, pending, with the page to pay on. */
export function initializeAccepted(collectionId: number, ref: string): NewEvent {
  return {
    collectionId,
    merchantReference: ref,
    source: 'initiate',
    kind: 'initialize_accepted',
    status: 'PENDING',
    receivedAt: Date.now(),
    signature: 'not_applicable',
    internalReference: `INT-${ref}`,
    paymentUrl: `https://pay.example.invalid/pay/${ref}`,
    payload: JSON.stringify({ http_status: 202, payment_url: `https://pay.example.invalid/pay/${ref}` }),
  };
}

/** A desktop's own event: keyed for the team, recorded there, and appended locally. */
export async function writeLocal(desk: Desk, ev: NewEvent): Promise<void> {
  const keyed = withTeamKey(ev);
  await recordEvents(desk.pool, [keyed]);
  ledger.append(desk.db, keyed);
}

/** A callback as `serve` writes it: straight into team.events, by another login. */
export function callbackEvent(
  intent: TeamIntent,
  status = 'COMPLETED',
  over: Partial<NewTeamEvent> = {},
): NewTeamEvent {
  const ref = intent.merchantReference;
  const body = JSON.stringify({
    event: `transaction.${status.toLowerCase()}`,
    payload: { merchant_reference: ref, transaction_status: status, status_message: 'Approved' },
  });
  return {
    eventKey: `callback:${ref}:${status}`,
    merchantReference: ref,
    internalReference: `INT-${ref}`,
    source: 'callback',
    kind: 'outcome',
    status,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
    signature: 'verified',
    payload: body,
    statusMessage: status === 'COMPLETED' ? 'Approved' : 'Declined',
    occurredAt: Date.now(),
    ...over,
  };
}

/** A collection as every desktop should show it (ids are each desktop's own). */
export function collectionView(db: Db, reference: string): Record<string, unknown> | undefined {
  const row = db.prepare('SELECT * FROM collections WHERE merchant_reference = ?').get(reference) as
    Record<string, unknown> | undefined;
  if (!row) return undefined;
  const { id: _id, last_event_id: _last, ...rest } = row;
  return rest;
}

export function eventsView(db: Db, reference: string): Record<string, unknown>[] {
  return db
    .prepare(
      `SELECT source, kind, status, received_at, signature, amount_minor, currency, dedupe_key, payload, note, internal_reference
       FROM collection_events WHERE merchant_reference = ? ORDER BY id`,
    )
    .all(reference) as Record<string, unknown>[];
}

/** Reconciliation without local ids or the time it was computed. */
export function reconciliationView(db: Db): Record<string, unknown>[] {
  return db
    .prepare(
      `SELECT c.merchant_reference, r.outcome, r.kinds, r.open_kinds, r.is_exception, r.stale_at, r.resolution_note,
              r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.completed_at
       FROM reconciliation r JOIN collections c ON c.id = r.collection_id ORDER BY c.merchant_reference`,
    )
    .all() as Record<string, unknown>[];
}
