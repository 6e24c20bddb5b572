// Read side of collections for the UI, CLI and reports: a filtered, sorted page, one collection with its
// timeline, and today's collected total for the daily limit. The queries are the store's read models
// (main/store/sqlite/read/); here their rows become what the screens show (flags by name, what each
// source says, the team's marks).
import type { ReadDb } from '../store/sqlite/connection.js';
import { collectionsPage, type CollectionRecord, type ListQuery } from '../store/sqlite/read/collections-page.js';
import { collectionRecord, collectionTimeline, type EventRecord } from '../store/sqlite/read/collection-detail.js';
import {
  checkingSignatures,
  refusedByCollection,
  SIGNED_SOURCES,
  uncheckedRange,
} from '../store/sqlite/read/team-marks.js';
import { collectedSince } from '../store/sqlite/read/daily-collected.js';
import type { IntentColumns } from '../store/sqlite/ledger/intent-rows.js';
import { flagNames, type FlagName } from './event-rules.js';
import { isFinal } from './model.js';
import { refusalText } from './outbox.js';

export type { ListQuery } from '../store/sqlite/read/collections-page.js';
// A collection resting on a signed event this new team desk has not re-checked is not reconciled until
// it is (app/ledger.ts): it never counts as matched on a signature this desk did not check.
export { restsOnUncheckedSignature } from '../store/sqlite/read/team-marks.js';

/** What each source says about a collection, and whether they agree. */
export interface SourcesAgree {
  initiate: string | null;
  redirect: string | null;
  redirectSignature: string | null;
  callback: string | null;
  /** true: every source that has spoken gives the same final status; null: nothing final yet. */
  agree: boolean | null;
}

/** A collection as the list and the detail show it: its intent columns (but where the page sends the customer back), then what happened. */
export interface CollectionRow extends Omit<IntentColumns, 'redirectUrl'> {
  id: number;
  internalReference: string | null;
  status: string;
  statusChangedAt: number;
  statusMessage: string | null;
  paymentUrl: string | null;
  sources: SourcesAgree;
  flags: FlagName[];
  finalChanges: number;
  /** On a team desk: how many of its events the team database refused (each says why in the timeline). */
  teamRefused: number;
  /**
   * On a new team desk: it rests on a signed event taken from the team's snapshot whose signature this
   * desk has not re-checked yet ("signature being checked"); until then it counts as neither matched nor final.
   */
  signatureBeingChecked: boolean;
}

export function toRow(
  r: CollectionRecord,
  refused: ReadonlyMap<number, number> = new Map(),
  checking: ReadonlySet<number> = new Set(),
): CollectionRow {
  const initiate = isFinal(r.status) ? null : r.status;
  const said = [r.redirect_status, r.callback_status].filter((x): x is string => !!x);
  return {
    id: r.id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    createdAt: r.created_at,
    amountMinor: r.amount_minor,
    currency: r.currency,
    description: r.description,
    customerName: r.customer_name,
    customerEmail: r.customer_email,
    chargeCustomer: !!r.charge_customer,
    allowFinalStatusChange: !!r.allow_final_status_change,
    operator: r.operator,
    providerCode: r.provider_code,
    cardBrand: r.card_brand,
    cardLast4: r.card_last4,
    status: r.status,
    statusChangedAt: r.status_changed_at,
    statusMessage: r.status_message,
    paymentUrl: r.payment_url,
    sources: {
      initiate,
      redirect: r.redirect_status,
      redirectSignature: r.redirect_signature,
      callback: r.callback_status,
      agree: said.length === 0 ? null : said.every((s) => s === r.status),
    },
    flags: flagNames(r.flags),
    finalChanges: r.final_changes,
    teamRefused: refused.get(r.id) ?? 0,
    signatureBeingChecked: checking.has(r.id),
  };
}

/** A page of collections as the list shows them, and how many match the filter. */
export function listCollections(db: ReadDb, q: ListQuery = {}): { rows: CollectionRow[]; total: number } {
  const { rows, total } = collectionsPage(db, q);
  const refused = refusedByCollection(db);
  const checking = checkingSignatures(
    db,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => toRow(r, refused, checking)), total };
}

export interface EventRow {
  id: number;
  source: string;
  kind: string;
  status: string | null;
  receivedAt: number;
  signature: string;
  internalReference: string | null;
  amountMinor: number | null;
  currency: string | null;
  /** The raw payload as stored (callback body bytes, redirect query, initialize answer). */
  payload: string | null;
  note: string | null;
  actor: string | null;
  /** On a team desk, when the team database refused this event: "not accepted by the team database: <why>". */
  teamRefused: string | null;
  /** A signed event a new team desk took from the snapshot and has not re-checked yet. */
  signatureBeingChecked: boolean;
}

function toEvent(e: EventRecord, unchecked: { lo: number; hi: number } | null = null): EventRow {
  return {
    id: e.id,
    source: e.source,
    kind: e.kind,
    status: e.status,
    receivedAt: e.received_at,
    signature: e.signature,
    internalReference: e.internal_reference,
    amountMinor: e.amount_minor,
    currency: e.currency,
    payload: e.payload,
    note: e.note,
    actor: e.actor,
    teamRefused: e.team_refused === null ? null : refusalText(e.team_refused),
    signatureBeingChecked:
      unchecked !== null &&
      e.id > unchecked.lo &&
      e.id <= unchecked.hi &&
      (SIGNED_SOURCES as readonly string[]).includes(e.source),
  };
}

/** One collection by id or merchant reference, with its whole timeline (oldest first); null if unknown. */
export function getCollection(
  db: ReadDb,
  idOrReference: number | string,
): { collection: CollectionRow; events: EventRow[] } | null {
  const raw = collectionRecord(db, idOrReference);
  if (!raw) return null;
  const events = collectionTimeline(db, raw.id);
  const unchecked = uncheckedRange(db);
  const timeline = events.map((e) => toEvent(e, unchecked));
  const checking = new Set(timeline.some((e) => e.signatureBeingChecked) ? [raw.id] : []);
  return { collection: toRow(raw, refusedByCollection(db), checking), events: timeline };
}

/** Start of the local calendar day containing `now`, unless a UTC offset (minutes) is given. */
export function startOfDay(now: number, utcOffsetMinutes?: number): number {
  if (utcOffsetMinutes === undefined) {
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    return d.getTime();
  }
  const shifted = now + utcOffsetMinutes * 60_000;
  return shifted - (((shifted % 86_400_000) + 86_400_000) % 86_400_000) - utcOffsetMinutes * 60_000;
}

/** Sum (minor units) of today's COMPLETED and PENDING collections in `currency`, for the daily limit. */
export function collectedToday(db: ReadDb, currency: string, now: number, utcOffsetMinutes?: number): number {
  return collectedSince(db, currency, startOfDay(now, utcOffsetMinutes));
}
