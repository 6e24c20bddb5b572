// The handle types the store's modules take: the whole connection (Db), one that can only read (ReadDb)
// and one that may write (WriteDb). Apart from connection.ts, which opens them, so transaction.ts can
// name a WriteDb without importing the module that imports it.
import type Database from 'better-sqlite3';

/** The whole connection: what opens, closes, sets pragmas and migrates. Read and write through ReadDb and WriteDb. */
export type Db = Database.Database;

/**
 * A statement a read model may run: everything a prepared statement does except `run`. (better-sqlite3
 * refuses `get`/`all`/`iterate` on a statement that returns no rows, so a read model holding this type
 * cannot write.)
 */
export type ReadStatement = Omit<Database.Statement, 'run'>;

/**
 * A handle that can only read: no `exec`, no `run`, no transactions of its own. Read models (one file per
 * screen's question, main/store/sqlite/read/) take this type, so the compiler refuses a write there. Any
 * `Db` is one.
 */
export interface ReadDb {
  prepare(sql: string): ReadStatement;
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

/**
 * A handle that may write: any statement, a script, a transaction (transaction.ts). Store modules that
 * write (ledger/, callbacks/, team/, settings, balances, payment options, poll runs, reconcile rows)
 * take this type, and those that only read take a ReadDb, so a signature says whether a function
 * writes. Opening, closing, pragmas and checkpoints stay on the whole connection (`Db`). Any `Db` is one.
 */
export interface WriteDb extends ReadDb {
  prepare(sql: string): Database.Statement;
  exec(sql: string): unknown;
  transaction: Database.Database['transaction'];
}
