// A desk process for the stop test (sync-drain.test.ts): a team session (pool, pull, outbox push,
// LISTEN) on its own SQLite file, stopped the way the shells stop a desk (app/shutdown.ts). It prints
// "applied N" as slices are applied and "up to date" once the first pull is done.
//   MD_DRAIN_TEAM_URL=postgres://... node --import tsx drain-child.ts <sqlite file>
import { openDatabase } from '../../main/store/db.js';
import { wireLedgerReconciliation } from '../../main/app/ledger.js';
import { systemClock } from '../../main/clock.js';
import { openTeamPool } from '../../main/team/pool.js';
import { startTeamSession } from '../../main/team/session.js';
import { closeWithin, leaveSoon, onStopSignals } from '../../main/app/shutdown.js';

const file = process.argv[2]!;
const url = process.env.MD_DRAIN_TEAM_URL!;
wireLedgerReconciliation();
const db = openDatabase(file);
const pool = openTeamPool(url, { onIdleError: () => undefined });
const quiet = { info() {}, warn() {}, error() {} };
let applied = 0;
let told = false;
const session = startTeamSession({
  pool,
  login: 'drain',
  role: 'support',
  db,
  clock: systemClock,
  logger: quiet,
  syncEveryMs: 60_000,
  onApplied: (changed) => {
    applied += changed.length;
    process.stdout.write(`applied ${applied}\n`);
  },
  onStatus: (s) => {
    if (!told && s.online && !s.catchingUp && s.lastPullAt !== null) {
      told = true;
      process.stdout.write(`up to date ${s.lastSeq}\n`);
    }
  },
});

const stop = onStopSignals();
void stop.requested.then(async () => {
  await closeWithin(async () => {
    await session.close();
    db.close();
  }, quiet);
  stop.dispose();
  leaveSoon(0);
});
