// Where snapshots live: team.snapshots and its parts (team migration 7). Writing one (publish) and
// reading the newest back into a file (download), with its digest and size checked on the way.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type pg from 'pg';
import {
  deleteSnapshotsExcept,
  insertSnapshot,
  insertSnapshotPart,
  selectNewestSnapshot,
  selectSnapshotPartBase64,
  type NewSnapshotRow,
  type SnapshotRow,
} from '../../store/pg/snapshots.js';
import { translatePgError } from '../errors.js';
import { poolLogin, toSafeInteger, withTransaction } from '../pool.js';
import { SnapshotRejectedError } from './rejected.js';

/**
 * Bytes of the SQLite file per part, each gzipped on its own (~8 MiB of gzip): a reader unzips the parts
 * on the thread pool several at a time and writes each at its own offset.
 */
const BLOCK_BYTES = 32 * 1024 * 1024;
/** Parts being fetched or unzipped at once by a reader. */
const IN_FLIGHT = 3;
const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** A published snapshot: what it was published with, and who published it when. */
export interface SnapshotInfo extends NewSnapshotRow {
  id: number;
  /** The login that published it, as PostgreSQL saw it. */
  madeBy: string;
  madeAt: number;
}

/** The newest snapshot of this SQLite schema version, or null. */
export async function newestSnapshot(pool: pg.Pool, schemaVersion: number): Promise<SnapshotInfo | null> {
  let row: SnapshotRow | undefined;
  try {
    row = await selectNewestSnapshot(pool, schemaVersion);
  } catch (e) {
    throw translatePgError(e, 'look for a team snapshot', poolLogin(pool));
  }
  if (!row) return null;
  return {
    id: toSafeInteger(row.id, 'id'),
    uptoSeq: toSafeInteger(row.upto_seq, 'upto_seq'),
    schemaVersion: row.schema_version,
    events: toSafeInteger(row.events, 'events'),
    collections: toSafeInteger(row.collections, 'collections'),
    bytes: toSafeInteger(row.bytes, 'bytes'),
    blockBytes: row.block_bytes,
    sha256: row.sha256,
    parts: row.parts,
    madeBy: row.made_by,
    madeAt: row.made_at.getTime(),
  };
}

/**
 * Writes the snapshot's SQLite file to `file`: its parts fetched in order (a few ahead), each unzipped on
 * the thread pool and written at its block's offset. Rejects with SnapshotRejectedError when the bytes
 * are not the ones published (size or SHA-256), a part does not unzip, or unzips to the wrong size.
 */
export async function downloadSnapshot(pool: pg.Pool, info: SnapshotInfo, file: string): Promise<void> {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const part = async (n: number): Promise<Buffer> => {
    let b64: string | undefined;
    try {
      // As base64 text, decoded natively (store/pg/snapshots.ts says why).
      b64 = await selectSnapshotPartBase64(pool, info.id, n);
    } catch (e) {
      throw translatePgError(e, 'download the team snapshot', poolLogin(pool));
    }
    if (b64 === undefined) throw new SnapshotRejectedError(`its part ${n} of ${info.parts} is missing`);
    return Buffer.from(b64, 'base64');
  };
  // Each part unzipped into one output buffer the size of a block (plus one byte, so that a part that
  // unzips to more still comes out longer than its block and is refused below): with zlib's default
  // 16 KiB chunks, a 32 MiB block was 2,048 chunks, each a round trip to the main thread, then copied
  // into one, and the inflate cost twice its own CPU (147 ms a block against 76 ms, measured on this
  // machine; a year's file is about 80 blocks). Never more than our own block size per part, whatever
  // the snapshot's row says: a larger part still unzips, in more chunks.
  const chunkSize = Math.min(Math.max(info.blockBytes, 1 << 16), BLOCK_BYTES) + 1;
  const unzip = async (n: number, gz: Buffer): Promise<Buffer> => {
    try {
      return await gunzip(gz, { chunkSize });
    } catch (e) {
      throw new SnapshotRejectedError(`its part ${n} does not unzip (damaged)`, { cause: e });
    }
  };
  const fh = await fs.promises.open(file, 'w', 0o600);
  const fetched: Promise<Buffer>[] = [];
  const writes: Promise<unknown>[] = [];
  try {
    for (let n = 0; n < info.parts; n++) {
      while (fetched.length < n + IN_FLIGHT && fetched.length < info.parts) {
        const p = part(fetched.length);
        p.catch(() => undefined); // awaited in its turn
        fetched.push(p);
      }
      const gz = await fetched[n]!;
      hash.update(gz);
      bytes += gz.length;
      const offset = n * info.blockBytes;
      const w = unzip(n, gz).then(async (block) => {
        const last = n === info.parts - 1;
        if (last ? block.length === 0 || block.length > info.blockBytes : block.length !== info.blockBytes)
          throw new SnapshotRejectedError(`its part ${n} unzips to ${block.length} bytes, not its block's`);
        await fh.write(block, 0, block.length, offset);
      });
      w.catch(() => undefined); // awaited below
      writes.push(w);
      if (writes.length >= IN_FLIGHT) await writes[writes.length - IN_FLIGHT];
    }
    await Promise.all(writes);
  } finally {
    await Promise.allSettled([...fetched, ...writes]);
    await fh.close();
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
 * Zips the SQLite file at `file` block by block (to `file`.gz beside it, noting where each part ends) and
 * stores it as the newest snapshot in ONE transaction, with its parts, deleting the older ones: a
 * reader sees a whole snapshot or none.
 */
export async function storeSnapshot(pool: pg.Pool, file: string, meta: PublishMeta): Promise<SnapshotInfo> {
  const gz = `${file}.gz`;
  const hash = crypto.createHash('sha256');
  const sizes: number[] = [];
  const src = await fs.promises.open(file, 'r');
  const out = await fs.promises.open(gz, 'w', 0o600);
  try {
    const size = (await src.stat()).size;
    for (let offset = 0; offset < size; offset += BLOCK_BYTES) {
      const block = Buffer.allocUnsafe(Math.min(BLOCK_BYTES, size - offset));
      await src.read(block, 0, block.length, offset);
      // Level 1: several times faster than the default for a little more size; a reader unzips either as fast.
      const z = await gzip(block, { level: 1 });
      hash.update(z);
      sizes.push(z.length);
      await out.write(z);
    }
  } finally {
    await src.close();
    await out.close();
  }
  const sha256 = hash.digest();
  const bytes = sizes.reduce((a, b) => a + b, 0);
  const parts = sizes.length;
  const fd = fs.openSync(gz, 'r');
  try {
    return await withTransaction(pool, 'publish a team snapshot', async (client) => {
      const made = await insertSnapshot(client, { ...meta, bytes, blockBytes: BLOCK_BYTES, sha256, parts });
      const id = toSafeInteger(made.id, 'id');
      let at = 0;
      for (let n = 0; n < parts; n++) {
        const buf = Buffer.allocUnsafe(sizes[n]!);
        fs.readSync(fd, buf, 0, buf.length, at);
        at += buf.length;
        await insertSnapshotPart(client, id, n, buf);
      }
      await deleteSnapshotsExcept(client, id);
      return {
        id,
        ...meta,
        bytes,
        blockBytes: BLOCK_BYTES,
        sha256,
        parts,
        madeBy: made.made_by,
        madeAt: made.made_at.getTime(),
      };
    });
  } finally {
    fs.closeSync(fd);
    fs.rmSync(gz, { force: true });
  }
}
