// The exceptions queue as the screens and the CLI see it: summary and counts, filtered list, detail with
// every source side by side, orphan callbacks, and the audit list of every event. The queries are the
// store's read models (main/store/sqlite/read/); here their rows become plain JSON (times ISO 8601,
// amounts integer minor units + currency) and the rules' vocabulary (which outcomes are exceptions)
// is applied. Resolving is the resolve command (resolve.ts).
import type { Db, ReadDb } from '../store/sqlite/connection.js';
import { exceptionsPage, openCountsByKind, type ReconciliationRecord } from '../store/sqlite/read/exceptions.js';
import { reconciliationCounts } from '../store/sqlite/read/summary.js';
import { openOrphanCount, orphanCounts, orphansPage } from '../store/sqlite/read/orphans.js';
import { knownCurrencies } from '../store/sqlite/read/currencies.js';
import { auditPage, type StoredEventRecord } from '../store/sqlite/read/audit.js';
import { exceptionDetail } from '../store/sqlite/read/exception-detail.js';
import { EXCEPTION_KINDS, isExceptionKind, RECON_KINDS, type ReconKind } from './classify.js';
import type {
  AuditEvent,
  ExceptionDetail,
  ExceptionRow,
  OrphanRow,
  ReconcileSummary,
  SourceColumn,
} from './types.shared.js';
import { ReconcileError } from './errors.js';
import { requireCollection, type ReconcileOptions } from './reconcile.js';

export type {
  AuditEvent,
  ExceptionDetail,
  ExceptionRow,
  OrphanRow,
  ReconcileSummary,
  SourceColumn,
  SourceStatusesJson,
} from './types.shared.js';
export type { ExceptionQuery as ExceptionFilter } from '../store/sqlite/read/exceptions.js';
export type { AuditQuery as AuditFilter } from '../store/sqlite/read/audit.js';
import type { ExceptionQuery } from '../store/sqlite/read/exceptions.js';
import type { AuditQuery } from '../store/sqlite/read/audit.js';

export const ORPHAN_KIND = 'orphan_callback';

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/** Counts what the reconciliation table holds (kept current as events are stored): pure reads. */
export function getSummary(db: ReadDb, options: ReconcileOptions = {}): ReconcileSummary {
  const now = options.now ?? Date.now();
  const counts = reconciliationCounts(db);
  const byOutcome: Record<string, number> = {};
  for (const k of RECON_KINDS) byOutcome[k] = 0;
  let notMatched = 0;
  for (const r of counts.notMatched) {
    byOutcome[r.outcome] = r.n;
    notMatched += r.n;
  }
  byOutcome.matched = counts.collections - notMatched;
  const openByKind = countsByKind(db);
  const orphans = orphanCounts(db);
  openByKind[ORPHAN_KIND] = orphans.open;
  return {
    collections: counts.collections,
    byOutcome,
    openExceptions: counts.openExceptions,
    openByKind,
    orphans,
    resolved: counts.resolved,
    computedAt: iso(now)!,
  };
}

function countsByKind(db: ReadDb): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of EXCEPTION_KINDS) out[k] = 0;
  for (const r of openCountsByKind(db)) out[r.kind] = r.n;
  return out;
}

function toRow(r: ReconciliationRecord): ExceptionRow {
  return {
    collectionId: r.id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    createdAt: iso(r.created_at)!,
    amountMinor: r.amount_minor,
    currency: r.currency,
    status: r.status,
    customerName: r.customer_name,
    outcome: r.outcome as ReconKind,
    kinds: JSON.parse(r.kinds) as ReconKind[],
    openKinds: JSON.parse(r.open_kinds) as ReconKind[],
    isException: r.is_exception === 1,
    resolvedByEventId: r.resolved_by_event_id,
    resolutionNote: r.resolution_note,
    sources: {
      initiate: r.initiate_status,
      redirect: r.redirect_status,
      callback: r.callback_status,
      import: r.import_status,
      manual: r.manual_status,
    },
    computedAt: iso(r.computed_at)!,
  };
}

export function listExceptions(
  db: ReadDb,
  filter: ExceptionQuery = {},
  _options: ReconcileOptions = {},
): { rows: ExceptionRow[]; total: number; countsByKind: Record<string, number> } {
  if (filter.kind !== undefined && !isExceptionKind(filter.kind)) {
    throw new ReconcileError(
      'validation',
      `kind must be one of ${EXCEPTION_KINDS.join(', ')} (orphan callbacks are listed separately)`,
      'kind',
    );
  }
  const { rows, total } = exceptionsPage(db, filter);
  const counts = countsByKind(db);
  counts[ORPHAN_KIND] = openOrphanCount(db);
  return { rows: rows.map(toRow), total, countsByKind: counts };
}

/** The currencies this merchant actually has: those of its collections and of its wallets, sorted. */
export function listCurrencies(db: ReadDb): string[] {
  return knownCurrencies(db);
}

export function listOrphanCallbacks(
  db: ReadDb,
  opts: {
    includeResolved?: boolean | undefined;
    eventId?: number | undefined;
    offset?: number | undefined;
    limit?: number | undefined;
  } = {},
): { rows: OrphanRow[]; total: number } {
  const { rows, total } = orphansPage(db, opts);
  return {
    total,
    rows: rows.map((r) => ({
      eventId: r.event_id,
      merchantReference: r.merchant_reference,
      internalReference: r.internal_reference,
      source: r.source,
      status: r.status,
      receivedAt: iso(r.received_at)!,
      signature: r.signature,
      amountMinor: r.amount_minor,
      currency: r.currency,
      resolvedByEventId: r.resolved_by_event_id,
      resolvedBy: r.resolved_by,
      resolvedAt: iso(r.resolved_at),
      resolutionNote: r.resolution_note,
    })),
  };
}

function toAudit(e: StoredEventRecord): AuditEvent {
  // Verbatim: parsing and re-serialising would reformat numbers, round large integers and drop duplicate keys.
  const payload = e.payload;
  return {
    id: e.id,
    collectionId: e.collection_id,
    merchantReference: e.merchant_reference,
    internalReference: e.internal_reference,
    source: e.source,
    kind: e.kind,
    status: e.status,
    receivedAt: iso(e.received_at)!,
    signature: e.signature,
    amountMinor: e.amount_minor,
    currency: e.currency,
    payload,
    note: e.note,
    actor: e.actor,
  };
}

const SOURCES: SourceColumn['source'][] = [
  'intent',
  'initiate',
  'redirect',
  'callback',
  'import',
  'manual',
  'security',
];

export function getDetail(db: Db, collectionId: number, _options: ReconcileOptions = {}): ExceptionDetail {
  requireCollection(db, collectionId);
  const detail = exceptionDetail(db, collectionId);
  const stored = detail.collection!;
  // Every column as stored, the two times as ISO text (the screen's collection record).
  const collection: Record<string, unknown> = {
    ...stored,
    created_at: iso(stored.created_at),
    status_changed_at: iso(stored.status_changed_at),
  };
  const events = detail.events.map(toAudit);
  const sources = SOURCES.map((source): SourceColumn => {
    const mine = events.filter((e) => e.source === source && e.kind !== 'resolution');
    const last = mine.filter((e) => e.status !== null).at(-1) ?? mine.at(-1);
    if (source === 'intent') {
      return {
        source,
        status: last?.status ?? 'INTENT',
        signature: 'not_applicable',
        amountMinor: stored.amount_minor,
        currency: stored.currency,
        receivedAt: iso(stored.created_at),
        events: mine.length,
      };
    }
    return {
      source,
      status: last?.status ?? null,
      signature: last?.signature ?? null,
      amountMinor: last?.amountMinor ?? null,
      currency: last?.currency ?? null,
      receivedAt: last?.receivedAt ?? null,
      events: mine.length,
    };
  });
  const r = detail.resolution;
  return {
    collection,
    reconciliation: detail.reconciliation ? toRow(detail.reconciliation) : null,
    resolution: r ? { eventId: r.event_id, by: r.actor, at: iso(r.at)!, note: r.note } : null,
    sources,
    events,
  };
}

/** Every event and resolution, newest first. */
export function listAudit(db: ReadDb, filter: AuditQuery = {}): { rows: AuditEvent[]; total: number } {
  const { rows, total } = auditPage(db, filter);
  return { rows: rows.map(toAudit), total };
}
