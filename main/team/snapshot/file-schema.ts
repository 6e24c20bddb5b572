// Which snapshot files a desk looks at all: one of its own SQLite schema version, with its tables,
// indexes and triggers and the chain's (store/sqlite/team/snapshot-chain.ts), and nothing else.
import type { Db } from '../../store/sqlite/connection.js';
import { migrations } from '../../store/sqlite/migrations/index.js';
import { schemaDifference, schemaOf, schemaVersionOf, snapshotSchema } from '../../store/sqlite/team/snapshot-file.js';
import { SnapshotRejectedError } from './rejected.js';

/** A snapshot is of one SQLite schema version: a desk takes only one of its own. */
export function snapshotSchemaVersion(): number {
  return migrations.reduce((m, x) => Math.max(m, x.version), 0);
}

/**
 * Rejects a file of another schema version, or with other tables, indexes or triggers than a snapshot's,
 * naming the first that differs (a table's column by its position: a row is read by column name).
 */
export function checkSnapshotSchema(snap: Db): void {
  const version = schemaVersionOf(snap);
  const want = snapshotSchemaVersion();
  if (version !== want) throw new SnapshotRejectedError(`its schema version is ${version}, this desk's ${want}`);
  if (schemaOf(snap) !== snapshotSchema())
    throw new SnapshotRejectedError(schemaDifference(snap) ?? "its tables, indexes or triggers are not this desk's");
}
