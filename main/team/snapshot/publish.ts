// Making a snapshot: the bulk copy of the team's events up to the newest seq into a fresh SQLite file
// (exactly what a new desk's replay makes, less the reconciliation, which every desk computes itself),
// then stored in the team database (store.ts). `merchant-desk team snapshot` runs it, signed in as
// back_office or admin; docs/team-setup.md suggests a nightly timer beside `serve`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { openDatabase } from '../../store/sqlite/connection.js';
import { asSingleFile, recordCounts } from '../../store/sqlite/team/snapshot-file.js';
import { TeamError } from '../errors.js';
import { newestSeq } from '../events.js';
import { bulkStart, type BulkProgress } from '../sync/bulk.js';
import { storeSnapshot, type SnapshotInfo } from './store.js';
import { snapshotSchemaVersion } from './verify.js';
import { teamEventVerifier } from '../evidence.js';
import type { SignatureKeys } from '../../service/verify-callback.js';

export interface PublishOptions {
  pool: pg.Pool;
  now: () => number;
  /** Where the scratch files go (removed after); default the system's temp folder. */
  scratchDir?: string;
  onProgress?: (p: BulkProgress) => void;
  /**
   * The keys the publisher checks every signed event with (team/evidence.ts), as a desk does: a desk
   * takes the snapshot only when its own check of each event reaches the same verdicts.
   */
  keys?: SignatureKeys;
}

export async function publishSnapshot(o: PublishOptions): Promise<SnapshotInfo> {
  const upto = await newestSeq(o.pool, 'read the team record');
  if (upto === 0) throw new TeamError('the team record has no events yet: there is nothing to snapshot');
  const dir = fs.mkdtempSync(path.join(o.scratchDir ?? os.tmpdir(), 'md-snapshot-'));
  try {
    const file = path.join(dir, 'snapshot.sqlite');
    const db = openDatabase(file);
    let counts: { events: number; collections: number };
    try {
      const r = await bulkStart({
        pool: o.pool,
        db,
        now: o.now,
        uptoSeq: upto,
        reconcile: false,
        ...(o.keys ? { verify: teamEventVerifier(o.keys) } : {}),
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      });
      if (!r) throw new TeamError('the snapshot was stopped part way');
      counts = recordCounts(db);
      // One file, no -wal beside it: what is published is the database alone.
      asSingleFile(db);
    } finally {
      db.close();
    }
    return await storeSnapshot(o.pool, file, { uptoSeq: upto, schemaVersion: snapshotSchemaVersion(), ...counts });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
