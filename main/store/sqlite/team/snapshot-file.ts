// Reading a snapshot file: what a desk checks it by (team/snapshot/verify.ts: its schema, its rows in id
// order) and what its publisher says of it (team/snapshot/publish.ts: counts, one file with no -wal).
import type { Db, ReadDb } from '../connection.js';
import { migrate, openConnection } from '../connection.js';
import { readStatement } from '../statements.js';
import { asValues, intValue, textOrNullValue, textValue } from '../../columns.js';
import { integerOrType, SNAPSHOT_CHAIN_SQL } from './snapshot-chain.js';

/** The schema version a file's migrations reached. */
export function schemaVersionOf(db: Db): number {
  return intValue(db.pragma('user_version', { simple: true }), 'user_version');
}

/** The schema a database has: tables, indexes and triggers, by name, as one comparable text. */
export function schemaOf(db: ReadDb): string {
  return JSON.stringify(
    readStatement(
      db,
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name",
      'raw',
    ).all(),
  );
}

let freshSchema: string | undefined;
/** The schema a desk of this version has (schemaOf a scratch database the migrations just made). */
export function migratedSchema(): string {
  if (freshSchema === undefined) {
    const mem = openConnection(':memory:', 'scratch');
    try {
      migrate(mem);
      freshSchema = schemaOf(mem);
    } finally {
      mem.close();
    }
  }
  return freshSchema;
}

/** `read` of a scratch database with the schema a snapshot file of this version has. */
function ofSnapshotScratch<T>(read: (db: ReadDb) => T): T {
  const mem = openConnection(':memory:', 'scratch');
  try {
    migrate(mem);
    mem.exec(SNAPSHOT_CHAIN_SQL);
    return read(mem);
  } finally {
    mem.close();
  }
}

let freshSnapshotSchema: string | undefined;
/** The schema a snapshot file of this version has: a desk's, and the chain's table (snapshot-chain.ts). */
export function snapshotSchema(): string {
  freshSnapshotSchema ??= ofSnapshotScratch(schemaOf);
  return freshSnapshotSchema;
}

/** One entry of a database's schema (sqlite_master): a table, index or trigger, and its columns if a table. */
interface SchemaEntry {
  type: string;
  name: string;
  sql: string | null;
  /** A table's columns in order, each as its name and declared type ("note TEXT"). */
  columns: string[];
}

function schemaEntries(db: ReadDb): Map<string, SchemaEntry> {
  const entries = new Map<string, SchemaEntry>();
  const rows = readStatement(
    db,
    "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name",
    'raw',
  ).all();
  for (const row of rows) {
    const [type, name, sql] = asValues(row);
    const t = textValue(type, 'type');
    const n = textValue(name, 'name');
    const columns =
      t === 'table'
        ? readStatement(db, 'SELECT name, type FROM pragma_table_info(?) ORDER BY cid', 'raw')
            .all(n)
            .map((c) => asValues(c).map(String).join(' ').trim())
        : [];
    entries.set(n, { type: t, name: n, sql: textOrNullValue(sql, 'sql'), columns });
  }
  return entries;
}

/**
 * What first makes `db`'s schema other than a snapshot's (snapshotSchema), said with the table and the
 * column: a table whose columns differ (one swapped with another, retyped, added or missing), another
 * definition of a table, index or trigger, or one too many or too few. Undefined when none does.
 */
export function schemaDifference(db: ReadDb): string | undefined {
  const want = ofSnapshotScratch(schemaEntries);
  const got = schemaEntries(db);
  for (const [name, w] of want) {
    const g = got.get(name);
    if (!g || g.type !== w.type) return `it has no ${w.type} ${name}`;
    if (w.type === 'table') {
      const at = w.columns.findIndex((c, i) => g.columns[i] !== c);
      if (at >= 0)
        return `its ${name} table is not this desk's: column ${at + 1} is ${g.columns[at] ?? 'missing'}, this desk's is ${w.columns[at]}`;
      if (g.columns.length > w.columns.length)
        return `its ${name} table is not this desk's: it has a column ${g.columns[w.columns.length]} this desk's does not`;
    }
    if (g.sql !== w.sql) return `its ${w.type} ${name} is not defined as this desk's is`;
  }
  for (const [name, g] of got) if (!want.has(name)) return `it has a ${g.type} ${name} that this desk's does not`;
  return undefined;
}

/** Rows of `table` with ids `afterId` + 1 .. `uptoId`, as arrays of `columns`, in id order. */
export function rowsInRange(
  db: ReadDb,
  table: string,
  columns: readonly string[],
  afterId: number,
  uptoId: number,
): unknown[][] {
  return readStatement(
    db,
    `SELECT ${columns.join(', ')} FROM ${table} WHERE id > ? AND id <= ? ORDER BY id`,
    'raw',
  ).all(afterId, uptoId) as unknown[][];
}

/** A page of tableJsonCursor: the rows whose ids fall in one range of this many. */
const CURSOR_PAGE = 20_000;

/**
 * Reads a table whole in id order (a snapshot's collections), the rows with ids in each range of
 * CURSOR_PAGE at a time as ONE JSON text SQLite writes (parsed here at about half what handing V8 each
 * value costs), each row an array of `columns`. JSON says a number from a text but not an integer from a
 * real: the `integers` among the columns are given as the type they hold when they hold anything but
 * an integer or NULL (integerOrType; columns.ts typedIntOrNullValue says which). Falls back to reading values for a range SQLite cannot write as JSON (a BLOB in it).
 * By id range, not LIMIT over a subquery of the whole row: that subquery handed over every column of
 * every row (about a third of the statement's CPU). The rows a snapshot must hold have ids 1..N with no
 * gap (every caller compares each row's id with the one it expects), so the walk ends at the first range
 * with no row: a file with a gap that wide is missing rows, which the caller finds missing.
 */
export function tableJsonCursor(
  db: ReadDb,
  table: string,
  columns: readonly string[],
  integers: ReadonlySet<string>,
): { next(): unknown[] | undefined } {
  const cols = columns.map((c) => (integers.has(c) ? integerOrType(c) : c)).join(', ');
  const page = readStatement(
    db,
    `SELECT json_group_array(json_array(${cols})) FROM ${table} WHERE id > ? AND id <= ?`,
    'pluck',
  );
  const byValue = readStatement(
    db,
    `SELECT ${columns.join(', ')} FROM ${table} WHERE id > ? AND id <= ? ORDER BY id`,
    'raw',
  );
  let rows: unknown[][] = [];
  let i = 0;
  let after = 0;
  let done = false;
  return {
    next(): unknown[] | undefined {
      if (i === rows.length) {
        if (done) return undefined;
        const upto = after + CURSOR_PAGE;
        try {
          rows = JSON.parse(page.get(after, upto) as string) as unknown[][];
          // json_group_array gives the rows in the order SQLite scanned them: the rowid's, for this range.
        } catch {
          rows = byValue.all(after, upto) as unknown[][];
        }
        i = 0;
        after = upto;
        if (!rows.length) {
          done = true;
          return undefined;
        }
      }
      return rows[i++];
    },
  };
}

/**
 * The lowest id of `table` outside 1..n, or undefined when every id is inside. Two seeks on the rowid
 * (one `id < 1 OR id > n` was a scan of the whole table: 0.1 µs an event).
 */
export function firstIdOutside(db: ReadDb, table: string, n: number): number | undefined {
  const low = readStatement(db, `SELECT min(id) FROM ${table}`, 'pluck').get();
  if (low !== null && low !== undefined && intValue(low, 'id') < 1) return intValue(low, 'id');
  const high = readStatement(db, `SELECT min(id) FROM ${table} WHERE id > ?`, 'pluck').get(n);
  return high === null || high === undefined ? undefined : intValue(high, 'id');
}

/**
 * The first row of `table` (in id order) that holds bytes in a TEXT column, as [id, column], or undefined.
 * SQLite's JSON functions take a BLOB argument as JSONB and write the JSON value it holds: a reference
 * stored as jsonb('"MD-1"') is written as "MD-1", so the chain's content and the rows' JSON pages read it
 * as the record's text, while the desk would hold bytes that no text lookup finds (a later callback for
 * it an orphan, a second collection with the same reference). No TEXT column of the record holds bytes.
 * typeof() reads only each record's header: one pass over the table, about what reading its ids costs.
 */
export function firstBytesInText(db: ReadDb, table: 'collections' | 'collection_events'): [number, string] | undefined {
  const columns = (readStatement(db, `PRAGMA table_info(${table})`, 'raw').all() as unknown[][])
    .filter((c) => String(c[2]).toUpperCase() === 'TEXT')
    .map((c) => String(c[1]));
  if (!columns.length) return undefined;
  const row = readStatement(
    db,
    `SELECT id, CASE ${columns.map((c) => `WHEN typeof(${c}) = 'blob' THEN '${c}'`).join(' ')} END FROM ${table}
      WHERE ${columns.map((c) => `typeof(${c}) = 'blob'`).join(' OR ')} ORDER BY id LIMIT 1`,
    'raw',
  ).get() as unknown[] | undefined;
  return row === undefined ? undefined : [intValue(row[0], 'id'), String(row[1])];
}

/** How many events and collections a database holds. */
export function recordCounts(db: ReadDb): { events: number; collections: number } {
  return {
    events: intValue(readStatement(db, 'SELECT count(*) FROM collection_events', 'pluck').get(), 'count(*)'),
    collections: intValue(readStatement(db, 'SELECT count(*) FROM collections', 'pluck').get(), 'count(*)'),
  };
}

/** One file, no -wal beside it: what is published is the database alone. */
export function asSingleFile(db: Db): void {
  db.pragma('journal_mode = DELETE');
}
