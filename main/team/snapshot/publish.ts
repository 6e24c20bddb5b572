// Making a snapshot: the bulk copy of the team's events up to the newest seq into a fresh SQLite file
// (exactly what a new desk's replay makes, less the reconciliation, which every desk computes itself),
// with, beside each event's row, what the row leaves out of the team event and, every MARK_EVERY seqs,
// its chain hash (snapshot_chain: a desk checks the file against the chain from these, chain.ts), then
// stored in the team database (store.ts). `merchant-desk team snapshot` runs it, signed in as
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
import { snapshotSchemaVersion } from './file-schema.js';
import { teamEventVerifier } from '../evidence.js';
import { createSnapshotChain, insertChainRows } from '../../store/sqlite/team/snapshot-chain.js';
import { chainRowOf, startsBlock } from './chain-event.js';
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
      createSnapshotChain(db);
      let prevSeq = 0;
      const r = await bulkStart({
        pool: o.pool,
        db,
        now: o.now,
        uptoSeq: upto,
        ledger: null,
        ...(o.keys ? { verify: teamEventVerifier(o.keys) } : {}),
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        // Each event is the row after the ones before it: a fresh file, and the record's event keys unique.
        onCopied: (events, before, stored) => {
          if (stored !== events.length)
            throw new TeamError(
              `the snapshot's copy stored ${stored} of ${events.length} events: its event keys repeat`,
            );
          insertChainRows(
            db,
            events.map((e, i) => {
              const row = chainRowOf(e, before + i + 1, startsBlock(prevSeq, e.seq));
              prevSeq = e.seq;
              return row;
            }),
          );
        },
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
