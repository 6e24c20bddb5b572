// The scratch database of the full pass on several threads: a helper thread computes its range with the
// full pass's statement (full-pass-sql.ts) into tables shaped like reconciliation (range-scratch.ts), and
// the writer copies them in (full-pass.ts mergeScratch): new rows by SQLite's transfer optimization,
// rows that replace stored ones by an upsert.
import { COLUMNS, COMPARED, RANGE_SELECT, RANGE_WITH, UPSERT } from './full-pass-sql.js';

/**
 * The scratch database's tables, from reconciliation's own definition (`ddl`: its table and index
 * statements from sqlite_master): `scratch.rows` has reconciliation's columns, key and partial indexes,
 * so that the writer copies it with SQLite's transfer optimization (INSERT INTO ... SELECT * of a table
 * of the same shape: records and index entries copied as they are, nothing decoded, no index condition
 * evaluated per row); `scratch.changed` holds rows that replace stored ones, which the writer upserts.
 */
export function scratchTablesSql(ddl: { type: string; sql: string }[]): string[] {
  const table = ddl.find((d) => d.type === 'table')!.sql;
  return [
    // Without its foreign key: the scratch database has no collections (and nothing is checked on a copy).
    table
      .replace(/^CREATE TABLE reconciliation\b/, 'CREATE TABLE scratch.rows')
      .replace(/\s+REFERENCES\s+\w+\s*\([^)]*\)/g, ''),
    ...ddl
      .filter((d) => d.type === 'index')
      .map((d) => d.sql.replace(/^CREATE INDEX (\w+) ON reconciliation\b/, 'CREATE INDEX scratch.$1 ON rows')),
    'CREATE TABLE scratch.changed AS SELECT * FROM scratch.rows WHERE false',
  ];
}

/** Reconciliation's table and index statements, for scratchTablesSql. */
export const RECONCILIATION_DDL_SQL =
  "SELECT type, sql FROM main.sqlite_master WHERE tbl_name = 'reconciliation' AND sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type DESC, name";

/**
 * Computes the rows of collections lo..hi into the scratch tables (attached as `scratch` to a helper
 * thread's connection, which never writes the app's database); only those that differ from the stored
 * row (as of the helper's snapshot), so that a recompute of a reconciled database hands the writer
 * almost nothing. Rows that replace a stored one move to `scratch.changed`, the rest (the first run's
 * every row) stay in `scratch.rows`. A row changed since that snapshot is the writer's to redo: it
 * gained an event, which the writer looks for.
 */
export const SCRATCH_SQL = [
  `${RANGE_WITH},
  n AS NOT MATERIALIZED (${RANGE_SELECT})
INSERT INTO scratch.rows (${COLUMNS}) SELECT ${COLUMNS} FROM n
WHERE NOT EXISTS (SELECT 1 FROM main.reconciliation r WHERE r.collection_id = n.collection_id
  AND ${COMPARED.map((c) => `r.${c} IS n.${c}`).join(' AND ')})`,
  `INSERT INTO scratch.changed SELECT * FROM scratch.rows s
WHERE EXISTS (SELECT 1 FROM main.reconciliation r WHERE r.collection_id = s.collection_id)`,
  'DELETE FROM scratch.rows WHERE collection_id IN (SELECT collection_id FROM scratch.changed)',
];

/**
 * A range with no stored row at all (as in the first recompute, into an empty table) needs neither the
 * compare with stored rows nor the split into new and changed: every row it computes is new. Whether
 * the range has any is one probe of the primary key (RANGE_STORED_SQL, parameters lo and hi).
 */
export const SCRATCH_NEW_SQL = `${RANGE_WITH},
  n AS NOT MATERIALIZED (${RANGE_SELECT})
INSERT INTO scratch.rows (${COLUMNS}) SELECT ${COLUMNS} FROM n`;

/** Whether any collection in lo..hi has a stored reconciliation row. */
export const RANGE_STORED_SQL = 'SELECT EXISTS (SELECT 1 FROM main.reconciliation WHERE collection_id BETWEEN ? AND ?)';

/**
 * Copies `scratch.rows` (new rows) into reconciliation by the transfer optimization. It fails, and
 * changes nothing, when one of its collections has a row by now (reconciled meanwhile by another
 * connection); STORE_SCRATCH_SQL('rows') is then the way.
 */
export const STORE_NEW_SQL = 'INSERT INTO main.reconciliation SELECT * FROM scratch.rows';

/** Upserts a scratch table (the scratch database attached as `scratch` to the writer). */
export const STORE_SCRATCH_SQL = (table: 'rows' | 'changed') =>
  `INSERT INTO main.reconciliation (${COLUMNS}) SELECT ${COLUMNS} FROM scratch.${table}${UPSERT}`;
