// The pull loop alone (sync/pull-loop.ts), on a real PostgreSQL and a real SQLite file, with the real chain
// watch and rollback watch beside it: a backlog is pulled page by page, each page one batch checked against
// the chain and applied as a set in one transaction with its seq and the chain head it reached; the
// screens are told once per batch (at most once a beat), the status bar how far it is.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { lastSeq } from '../../main/store/sqlite/team/sync-state.js';
import { keptHead } from '../../main/store/sqlite/team/chain-head.js';
import { appendEvents } from '../../main/team/events.js';
import { createChainWatch } from '../../main/team/sync/chain-watch.js';
import { createSyncNotices } from '../../main/team/sync/notices.js';
import { pullEvents } from '../../main/team/sync/pull-loop.js';
import { startRollbackWatch } from '../../main/team/sync/rollback.js';
import { createSyncStatus, initialStatus, type TeamSyncStatus } from '../../main/team/sync/status.js';
import { history } from './new-desk.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

const quiet = { info() {}, warn() {} };
let team: TeamFixture;
let dir: string;

beforeAll(async () => {
  team = await teamFixture();
  dir = fileTempDir('md-pull-loop-');
}, 60_000);
afterAll(async () => {
  await team?.close();
});

describe('the pull loop', () => {
  it('applies a backlog page by page, each page in batches with their seq and chain head, and tells the screens once a batch', async () => {
    const events = history(60, 'MD-LOOP', 31);
    await appendEvents(team.owner, events);
    const newest = Number((await team.owner.query('SELECT max(seq) AS n FROM team.events')).rows[0].n);
    const pool = team.signIn(await team.addOperator('support'));
    const db = openDatabase(path.join(dir, 'desk.sqlite'));
    try {
      const status = createSyncStatus(initialStatus(0, null, 60_000), quiet);
      const progress: TeamSyncStatus['catchingUp'][] = [];
      status.watch((s) => progress.push(s.catchingUp));
      const told: string[] = [];
      const notices = createSyncNotices(
        { onApplied: () => told.push('collections'), onOrphans: () => told.push('orphans') },
        { beatMs: 0, logger: quiet },
      );
      const chain = createChainWatch({
        pool,
        db,
        now: Date.now,
        status,
        logger: quiet,
        everyMs: 0,
        stopped: () => false,
        explain: async () => false,
      });
      const rollback = startRollbackWatch({
        pool,
        db,
        ledger,
        clock: systemClock,
        logger: quiet,
        login: null,
        chain,
        verify: () => undefined,
        onChange: () => undefined,
        stopped: () => false,
      });
      // Pages of 50 events, applied in batches of 20 (a sizer that does not learn, so the batches are known).
      const applied = await pullEvents({
        pool,
        db,
        ledger,
        now: Date.now,
        login: null,
        chain,
        rollback,
        status,
        notices,
        verifier: () => undefined,
        stopped: () => false,
        sizer: { size: () => 20, took: () => undefined },
        pageSize: 50,
        beatMs: 0,
        progressEvery: 25,
      });
      expect(applied).toBe(events.length);
      expect(lastSeq(db, 'events')).toBe(newest);
      expect(keptHead(db)?.seq).toBe(newest); // kept with the last batch, in its transaction
      expect(db.prepare('SELECT count(*) FROM collection_events').pluck().get()).toBe(events.length);
      // One notice for each batch: 20, 20 and 10 of each page of 50.
      const batches = Math.floor(events.length / 50) * 3 + Math.ceil((events.length % 50) / 20);
      expect(told.filter((t) => t === 'collections').length).toBe(batches);
      // The status bar heard how far it was while there was more, then nothing behind.
      expect(progress.filter((p) => p !== null).length).toBeGreaterThan(1);
      expect(status.get().catchingUp).toBeNull();
      expect(status.get().chain.verifiedSeq).toBe(newest);
    } finally {
      db.close();
    }
  }, 60_000);
});
