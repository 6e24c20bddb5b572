// Where snapshots live: team.snapshots and its parts (team migration 7). Writing one (publish) and
// reading the newest back into a file (download), with its digest and size checked on the way.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type pg from 'pg';
import { translatePgError } from '../errors.js';
import { poolLogin, toSafeInteger } from '../pool.js';
import { SnapshotRejectedError } from './rejected.js';

/** Parts of at most this many bytes of gzip: small enough for one query each, few enough to fetch quickly. */
export const PART_BYTES = 8 * 1024 * 1024;

export interface SnapshotInfo {
  id: number;
  uptoSeq: number;
  schemaVersion: number;
  events: number;
  collections: number;
  /** Bytes of gzip stored, and their SHA-256. */
  bytes: number;
  sha256: Buffer;
  parts: number;
  /** The login that published it, as PostgreSQL saw it. */
  madeBy: string;
  madeAt: number;
}

/** The newest snapshot of this SQLite schema version, or null. */
export async function newestSnapshot(pool: pg.Pool, schemaVersion: number): Promise<SnapshotInfo | null> {
  let r: pg.QueryResult<Record<string, unknown>>;
  try {
    r = await pool.query(
      `SELECT id, upto_seq, schema_version, events, collections, bytes, sha256, parts, made_by, made_at
       FROM team.snapshots WHERE schema_version = $1 ORDER BY upto_seq DESC, id DESC LIMIT 1`,
      [schemaVersion],
    );
  } catch (e) {
    throw translatePgError(e, 'look for a team snapshot', poolLogin(pool));
  }
  const row = r.rows[0];
  if (!row) return null;
  return {
    id: toSafeInteger(row.id, 'id'),
    uptoSeq: toSafeInteger(row.upto_seq, 'upto_seq'),
    schemaVersion: row.schema_version as number,
    events: toSafeInteger(row.events, 'events'),
    collections: toSafeInteger(row.collections, 'collections'),
    bytes: toSafeInteger(row.bytes, 'bytes'),
    sha256: row.sha256 as Buffer,
    parts: row.parts as number,
    madeBy: row.made_by as string,
    madeAt: (row.made_at as Date).getTime(),
  };
}

/**
 * Writes the snapshot's SQLite file to `file`: its parts in order (the next one fetched while this one
 * is written), unzipped on the way. Rejects with SnapshotRejectedError when the bytes are not the
 * ones published (size or SHA-256) or do not unzip.
 */
export async function downloadSnapshot(
  pool: pg.Pool,
  info: SnapshotInfo,
  file: string,
  onBytes?: (bytes: number) => void,
): Promise<void> {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const part = async (n: number): Promise<Buffer | undefined> => {
    try {
      // As base64 text, decoded natively: pg would parse bytea from hex text (twice the size), and its
      // protocol reader decodes every field of a binary result as UTF-8 text, which would damage the bytes.
      const r = await pool.query<[string]>({
        text: "SELECT encode(data, 'base64') FROM team.snapshot_parts WHERE snapshot_id = $1 AND part = $2",
        values: [info.id, n],
        rowMode: 'array',
      });
      const b64 = r.rows[0]?.[0];
      return b64 === undefined ? undefined : Buffer.from(b64, 'base64');
    } catch (e) {
      throw translatePgError(e, 'download the team snapshot', poolLogin(pool));
    }
  };
  async function* parts(): AsyncGenerator<Buffer> {
    let next: Promise<Buffer | undefined> | undefined = part(0);
    for (let n = 0; n < info.parts; n++) {
      const got: Buffer | undefined = await next;
      next = n + 1 < info.parts ? part(n + 1) : undefined;
      next?.catch(() => undefined); // awaited in the next round; an abandoned prefetch must not go unhandled
      if (!got) throw new SnapshotRejectedError(`its part ${n} of ${info.parts} is missing`);
      hash.update(got);
      bytes += got.length;
      onBytes?.(bytes);
      yield got;
    }
  }
  try {
    await pipeline(Readable.from(parts()), zlib.createGunzip(), fs.createWriteStream(file, { mode: 0o600 }));
  } catch (e) {
    if (e instanceof SnapshotRejectedError || (e as { name?: string }).name === 'TeamUnavailableError') throw e;
    if ((e as { code?: string }).code?.startsWith('Z_'))
      throw new SnapshotRejectedError('its data does not unzip (damaged)', { cause: e });
    throw e;
  }
  if (bytes !== info.bytes)
    throw new SnapshotRejectedError(`it has ${bytes} bytes, its publisher stored ${info.bytes}`);
  if (!hash.digest().equals(info.sha256))
    throw new SnapshotRejectedError('its SHA-256 is not the one its publisher stored (damaged)');
}

export interface PublishMeta {
  uptoSeq: number;
  schemaVersion: number;
  events: number;
  collections: number;
}

/**
 * Zips the SQLite file at `file` (to `file`.gz beside it) and stores it as the newest snapshot in ONE
 * transaction, with its parts, deleting the older ones: a reader sees a whole snapshot or none.
 */
export async function storeSnapshot(pool: pg.Pool, file: string, meta: PublishMeta): Promise<SnapshotInfo> {
  const gz = `${file}.gz`;
  const hash = crypto.createHash('sha256');
  // Level 1: several times faster than the default for a little more size; the desks unzip either as fast.
  await pipeline(
    fs.createReadStream(file),
    zlib.createGzip({ level: 1 }),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const b of source) {
        hash.update(b);
        yield b;
      }
    },
    fs.createWriteStream(gz, { mode: 0o600 }),
  );
  const sha256 = hash.digest();
  const bytes = fs.statSync(gz).size;
  const parts = Math.max(1, Math.ceil(bytes / PART_BYTES));
  const client = await pool.connect().catch((e: unknown) => {
    throw translatePgError(e, 'publish a team snapshot', poolLogin(pool));
  });
  const fd = fs.openSync(gz, 'r');
  try {
    await client.query('BEGIN');
    const r = await client.query<{ id: string; made_by: string; made_at: Date }>(
      `INSERT INTO team.snapshots (upto_seq, schema_version, events, collections, bytes, sha256, parts)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, made_by, made_at`,
      [meta.uptoSeq, meta.schemaVersion, meta.events, meta.collections, bytes, sha256, parts],
    );
    const id = toSafeInteger(r.rows[0]!.id, 'id');
    const buf = Buffer.allocUnsafe(PART_BYTES);
    for (let n = 0; n < parts; n++) {
      const len = fs.readSync(fd, buf, 0, PART_BYTES, n * PART_BYTES);
      await client.query('INSERT INTO team.snapshot_parts (snapshot_id, part, data) VALUES ($1, $2, $3)', [
        id,
        n,
        buf.subarray(0, len),
      ]);
    }
    await client.query('DELETE FROM team.snapshots WHERE id <> $1', [id]);
    await client.query('COMMIT');
    return { id, ...meta, bytes, sha256, parts, madeBy: r.rows[0]!.made_by, madeAt: r.rows[0]!.made_at.getTime() };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw translatePgError(e, 'publish a team snapshot', poolLogin(pool));
  } finally {
    fs.closeSync(fd);
    fs.rmSync(gz, { force: true });
    client.release();
  }
}
