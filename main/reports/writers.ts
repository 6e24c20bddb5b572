// The collections report, streamed from SQLite (statement.iterate, raw rows; the queries are the store's,
// main/store/sqlite/read/collections-report.ts) into a line sink: its columns, its header, and its rows
// (collection-rows.ts). The balance report is balances-writer.ts. They run on the export worker
// (export-worker.ts) but are plain functions, so they can be called directly too.
import type { ReadDb } from '../store/sqlite/connection.js';
import { reportRowCount } from '../store/sqlite/read/collections-report.js';
import { EOL, plainCell, type LineSink, type ProgressFn, type TimeZoneOption } from './csv.js';
import { collectionRowsWriter } from './collection-rows.js';

export interface CollectionsReportParams {
  /** created_at range in ms: from inclusive, to exclusive. */
  from?: number;
  to?: number;
  tz?: TimeZoneOption;
}

export const COLLECTION_COLUMNS = [
  'merchant_reference',
  'internal_reference',
  'created_at',
  'amount',
  'currency',
  'status',
  'initiate_status',
  'redirect_status',
  'callback_status',
  'import_status',
  'manual_status',
  'reconciliation_outcome',
  'reconciliation_kinds',
  'open_exception',
  'charge_customer',
  'allow_final_status_change',
  'description',
  'customer_name',
  'customer_email',
  'operator',
  'provider_code',
  'card_brand',
  'card_last4',
  'status_changed_at',
  'status_message',
  'resolution_note',
  'completed_at',
  'payment_url',
  'redirect_url',
  'collection_id',
] as const;

export function collectionsHeader(): string {
  return COLLECTION_COLUMNS.map(plainCell).join(',') + EOL;
}

/** Writes the rows (no header) of collections created in [from, to). */
function writeCollectionRows(
  db: ReadDb,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
  total = 0,
): number {
  return collectionRowsWriter(db, params.tz)(params, sink, progress, total);
}

export function writeCollectionsCsv(
  db: ReadDb,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
): { rows: number } {
  const total = reportRowCount(db, params);
  sink.push(collectionsHeader());
  progress?.(0, total);
  const n = writeCollectionRows(db, params, sink, progress, total);
  sink.flush();
  progress?.(n, total);
  return { rows: n };
}
