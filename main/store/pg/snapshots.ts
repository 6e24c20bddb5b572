// team.snapshots and team.snapshot_parts (team migration 7): a snapshot's row and its gzipped blocks.
// made_by and made_at are the database's. The newest replaces the older ones (their parts go with them:
// ON DELETE CASCADE).
import type pg from 'pg';
import type { Queryable } from './connection.js';
import { bytes, date, int, maybe, onlyRow, rowMapper, text } from '../columns.js';

/** A snapshot's row as stored (bigints as text). */
export interface SnapshotRow {
  id: string;
  upto_seq: string;
  schema_version: number;
  events: string;
  collections: string;
  bytes: string;
  block_bytes: number;
  sha256: Buffer;
  parts: number;
  made_by: string;
  made_at: Date;
}

const snapshotRowOf = rowMapper<SnapshotRow>((r) => ({
  id: text(r, 'id'),
  upto_seq: text(r, 'upto_seq'),
  schema_version: int(r, 'schema_version'),
  events: text(r, 'events'),
  collections: text(r, 'collections'),
  bytes: text(r, 'bytes'),
  block_bytes: int(r, 'block_bytes'),
  sha256: bytes(r, 'sha256'),
  parts: int(r, 'parts'),
  made_by: text(r, 'made_by'),
  made_at: date(r, 'made_at'),
}));
const madeOf = rowMapper((r) => ({ id: text(r, 'id'), made_by: text(r, 'made_by'), made_at: date(r, 'made_at') }));

/** The newest snapshot of this SQLite schema version; undefined when there is none. */
export async function selectNewestSnapshot(db: Queryable, schemaVersion: number): Promise<SnapshotRow | undefined> {
  const r = await db.query(
    `SELECT id, upto_seq, schema_version, events, collections, bytes, block_bytes, sha256, parts, made_by, made_at
     FROM team.snapshots WHERE schema_version = $1 ORDER BY upto_seq DESC, id DESC LIMIT 1`,
    [schemaVersion],
  );
  return maybe(r.rows[0], snapshotRowOf);
}

/**
 * One part's bytes as base64 text (decoded natively by the caller): pg would parse bytea from hex text (twice
 * the size), and its protocol reader decodes every field of a binary result as UTF-8 text, which would damage
 * the bytes. Undefined when the part is missing.
 */
export async function selectSnapshotPartBase64(
  db: Queryable,
  snapshotId: number,
  part: number,
): Promise<string | undefined> {
  const r = await db.query<[string]>({
    text: "SELECT encode(data, 'base64') FROM team.snapshot_parts WHERE snapshot_id = $1 AND part = $2",
    values: [snapshotId, part],
    rowMode: 'array',
  });
  return r.rows[0]?.[0];
}

/** A snapshot as it is published: what it covers, and how its file is stored. */
export interface NewSnapshotRow {
  uptoSeq: number;
  schemaVersion: number;
  events: number;
  collections: number;
  /** Bytes of gzip stored (the parts in order), and their SHA-256. */
  bytes: number;
  /** Bytes of the file each part holds (the last one, the rest). */
  blockBytes: number;
  sha256: Buffer;
  parts: number;
}

/** Inserts a snapshot's row (its parts follow, in the same transaction); its id and who made it when. */
export async function insertSnapshot(
  client: pg.PoolClient,
  s: NewSnapshotRow,
): Promise<{ id: string; made_by: string; made_at: Date }> {
  const r = await client.query(
    `INSERT INTO team.snapshots (upto_seq, schema_version, events, collections, bytes, block_bytes, sha256, parts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, made_by, made_at`,
    [s.uptoSeq, s.schemaVersion, s.events, s.collections, s.bytes, s.blockBytes, s.sha256, s.parts],
  );
  return onlyRow(r.rows, madeOf);
}

export async function insertSnapshotPart(
  client: pg.PoolClient,
  snapshotId: number,
  part: number,
  data: Buffer,
): Promise<void> {
  await client.query('INSERT INTO team.snapshot_parts (snapshot_id, part, data) VALUES ($1, $2, $3)', [
    snapshotId,
    part,
    data,
  ]);
}

/** Deletes every snapshot but `keepId`, with their parts. */
export async function deleteSnapshotsExcept(client: pg.PoolClient, keepId: number): Promise<void> {
  await client.query('DELETE FROM team.snapshots WHERE id <> $1', [keepId]);
}
