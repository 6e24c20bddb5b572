// A desk process for the stop test (sync-drain.test.ts): the app's core on a team profile's data folder
// (composeCore, as the shells compose it, without a window), its operator signed in, stopped the way the
// shells stop a desk (app/shutdown.ts). It prints "applied N" for each notice of applied collections the sync gives the screens
// (one per slice), and "up to date SEQ" once its first pull is done.
//   MD_DRAIN_PASSWORD=... node --import tsx drain-child.ts <data folder>
import { composeCore } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { closeWithin, leaveSoon, onStopSignals } from '../../main/app/shutdown.js';

const dataDir = process.argv[2]!;
const stop = onStopSignals();
const core = await composeCore({
  dataDir,
  logger: silentLogger(),
  receiver: false,
  lock: { checkEveryMs: 0 },
  teamSyncEveryMs: 60_000,
});
let applied = 0;
core.events.subscribe((event) => {
  if (event === 'collections.changed') process.stdout.write(`applied ${++applied}\n`);
});
// The operator signs in as at the lock screen (the password from the environment, never an argument).
await core.lock.unlock(process.env.MD_DRAIN_PASSWORD!);
const watch = setInterval(() => {
  const s = core.team()?.sync.status();
  if (s?.online && !s.catchingUp && s.lastPullAt !== null) {
    clearInterval(watch);
    process.stdout.write(`up to date ${s.lastSeq}\n`);
  }
}, 20);
watch.unref();

await stop.requested;
clearInterval(watch);
const clean = await closeWithin(() => core.close(), core.logger);
stop.dispose();
// A close cut short says so in the exit code (what was written is committed anyway).
leaveSoon(clean ? 0 : 1);
