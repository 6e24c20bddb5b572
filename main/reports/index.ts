export {
  checkExportTarget,
  runExport,
  snapshotsPathFor,
  type ExportFormat,
  type ExportJob,
  type ExportOptions,
  type ExportProgress,
  type ExportResult,
} from './export.js';
export { writeCollectionsCsv, COLLECTION_COLUMNS } from './writers.js';
export { writeBalancesCsv, BALANCE_SUMMARY_COLUMNS, BALANCE_SNAPSHOT_COLUMNS } from './balances-writer.js';
export { textCell, amountCell, timeFormatter, BOM, type TimeZoneOption } from './csv.js';
export { parseDateBound, checkRange } from './dates.js';
export { ReportError } from './errors.js';
