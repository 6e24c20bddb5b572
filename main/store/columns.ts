// The store's edge: every read turns the driver's untyped row into a declared row type through one small
// mapper per row shape (`rowMapper`), built from these column readers. A reader checks the value's type
// and throws a StoreError naming the column when it is not what the row type says (a database written by
// hand, or a column whose affinity let a wrong value in), instead of handing the caller a cast that lies.
// Cheap on purpose, no schema library per row: a page of collections, the ledger's projection reads per
// event and the team's pulls run these for every row. (The collections export reads one text per row
// and is left out: collections-report.ts.)
import { StoreError } from './store-error.js';

/** A row as a driver hands it: column name to value. */
export type RawRow = Readonly<Record<string, unknown>>;

function shown(v: unknown): string {
  if (v === null) return 'NULL';
  if (v === undefined) return 'nothing (no such column)';
  if (Buffer.isBuffer(v)) return 'a BLOB';
  return `a ${typeof v}`;
}

function wrong(column: string, want: string, v: unknown): never {
  throw new StoreError(`the stored column ${column} holds ${shown(v)}, not ${want}`);
}

/** `v` as a row object (a statement in object mode always gives one; anything else is a store bug). */
export function asRow(v: unknown, what = 'row'): RawRow {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RawRow) : wrong(what, 'a row', v);
}

/** `v` as a raw row (a statement in raw or array mode: its values in the SELECT's order). */
export function asValues(v: unknown, what = 'row'): readonly unknown[] {
  return Array.isArray(v) ? v : wrong(what, 'a row of values', v);
}

/** A mapper from the driver's row to `T`: one per row shape, used as `.all().map(m)` or `maybe(.get(), m)`. */
export function rowMapper<T>(build: (r: RawRow) => T): (v: unknown) => T {
  return (v) => build(asRow(v));
}

/** The one row a statement always gives (an INSERT ... RETURNING, a function's answer), through its mapper. */
export function onlyRow<T>(rows: readonly unknown[], map: (v: unknown) => T): T {
  if (rows.length !== 1) throw new StoreError(`the statement gave ${rows.length} rows, not one`);
  return map(rows[0]);
}

/** A `.get()` result through its mapper: undefined when there was no row. */
export function maybe<T>(v: unknown, map: (v: unknown) => T): T | undefined {
  return v === undefined ? undefined : map(v);
}

// --- Values (one column's value, a row's or a plucked statement's) -------------------------------------

export function textValue(v: unknown, column: string): string {
  return typeof v === 'string' ? v : wrong(column, 'text', v);
}
export function textOrNullValue(v: unknown, column: string): string | null {
  return v === null || typeof v === 'string' ? v : wrong(column, 'text or NULL', v);
}
export function intValue(v: unknown, column: string): number {
  return typeof v === 'number' && Number.isInteger(v) ? v : wrong(column, 'an integer', v);
}
export function intOrNullValue(v: unknown, column: string): number | null {
  return v === null || (typeof v === 'number' && Number.isInteger(v)) ? v : wrong(column, 'an integer or NULL', v);
}
export function numberValue(v: unknown, column: string): number {
  return typeof v === 'number' ? v : wrong(column, 'a number', v);
}
export function numberOrNullValue(v: unknown, column: string): number | null {
  return v === null || typeof v === 'number' ? v : wrong(column, 'a number or NULL', v);
}
export function bytesValue(v: unknown, column: string): Buffer {
  return Buffer.isBuffer(v) ? v : wrong(column, 'a BLOB', v);
}
export function bytesOrNullValue(v: unknown, column: string): Buffer | null {
  return v === null || Buffer.isBuffer(v) ? v : wrong(column, 'a BLOB or NULL', v);
}

/** What SQLite's typeof() says a column holds, in a message's words. */
const SQLITE_TYPES: Readonly<Record<string, string>> = { text: 'text', real: 'a real number', blob: 'bytes' };

/**
 * An INTEGER column read through SQLite's JSON, which cannot tell 1.0 from 1: the statement gives the
 * value when it is an integer (or NULL) and otherwise the name of the type it holds (typeof(), see
 * store/sqlite/team/snapshot-file.ts integerOrType), said here with the column.
 */
export function typedIntOrNullValue(v: unknown, column: string): number | null {
  if (typeof v === 'string')
    throw new StoreError(`the stored column ${column} holds ${SQLITE_TYPES[v] ?? 'text'}, not an integer`);
  return intOrNullValue(v, column);
}
export function typedIntValue(v: unknown, column: string): number {
  return typedIntOrNullValue(v, column) ?? wrong(column, 'an integer', null);
}
/** A text value that is one of `values` (what a table's CHECK allows; a hand-written row may not). */
export function oneOfValue<T extends string>(v: unknown, column: string, values: readonly T[]): T {
  for (const x of values) if (x === v) return x;
  return wrong(column, `one of ${values.join(', ')}`, v);
}

/**
 * Each name's position in `names`: a raw row's values read by column name, from the list the statement
 * was written from (so a name and its position cannot drift apart).
 */
export function positionsOf<N extends string>(names: readonly N[]): Readonly<Record<N, number>> {
  // fromEntries types its keys as string; they are exactly `names`.
  return Object.fromEntries(names.map((n, i) => [n, i])) as Record<N, number>;
}

// --- Columns of a row ------------------------------------------------------------------------------------

export const text = (r: RawRow, column: string): string => textValue(r[column], column);
export const textOrNull = (r: RawRow, column: string): string | null => textOrNullValue(r[column], column);
export const int = (r: RawRow, column: string): number => intValue(r[column], column);
export const intOrNull = (r: RawRow, column: string): number | null => intOrNullValue(r[column], column);
export const num = (r: RawRow, column: string): number => numberValue(r[column], column);
export const numOrNull = (r: RawRow, column: string): number | null => numberOrNullValue(r[column], column);
export const bytes = (r: RawRow, column: string): Buffer => bytesValue(r[column], column);
export const bytesOrNull = (r: RawRow, column: string): Buffer | null => bytesOrNullValue(r[column], column);
/** A text column that holds one of `values` (what the table's CHECK allows; a hand-written row may not). */
export function oneOf<T extends string>(r: RawRow, column: string, values: readonly T[]): T {
  return oneOfValue(r[column], column, values);
}
export function bool(r: RawRow, column: string): boolean {
  const v = r[column];
  return typeof v === 'boolean' ? v : wrong(column, 'a boolean', v);
}
export function date(r: RawRow, column: string): Date {
  const v = r[column];
  return v instanceof Date ? v : wrong(column, 'a timestamp', v);
}
export function dateOrNull(r: RawRow, column: string): Date | null {
  const v = r[column];
  return v === null || v instanceof Date ? v : wrong(column, 'a timestamp or NULL', v);
}
/** An array column of texts (PostgreSQL's text[]). */
export function textList(r: RawRow, column: string): string[] {
  const v = r[column];
  return Array.isArray(v) ? texts(v, column) : wrong(column, 'an array', v);
}
/** An array column of texts and NULLs (PostgreSQL's text[] with NULL elements). */
export function textOrNullList(r: RawRow, column: string): (string | null)[] {
  const v = r[column];
  if (!Array.isArray(v)) return wrong(column, 'an array', v);
  return v.map((x: unknown) => textOrNullValue(x, column));
}
/** An array column of booleans (PostgreSQL's boolean[]). */
export function boolList(r: RawRow, column: string): boolean[] {
  const v = r[column];
  if (!Array.isArray(v)) return wrong(column, 'an array', v);
  return v.map((x: unknown) => (typeof x === 'boolean' ? x : wrong(column, 'booleans', x)));
}

// --- Plucked values and lists --------------------------------------------------------------------------

/** Every value of a plucked column, as text. */
export function texts(vs: readonly unknown[], column: string): string[] {
  return vs.map((v) => textValue(v, column));
}
/** Every value of a plucked column, as integers. */
export function ints(vs: readonly unknown[], column: string): number[] {
  return vs.map((v) => intValue(v, column));
}
