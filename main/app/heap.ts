// How a desk's main process keeps its heap small while it catches up with the team. Draining a backlog
// allocates a great deal of short-lived data (pulled pages, pushes to the window, the screens' re-reads)
// while what the desk keeps stays about 50 MB. V8's default lets the heap grow to up to four times what
// survived the last full collection before it collects again: a desk draining 50,000 events held 182 MB
// of V8 heap and 310 MiB resident, of which a forced collection left 49 MB (bench:follow's backlog,
// 26 Nov). While it catches up, a growing factor of 1.2 collects sooner: the same drain peaked at 195 MiB,
// its V8 heap used at most 76 MB.
//
// V8 sets the next collection's limit only at a full collection, so a flag changed now would wait for
// the limit the last one left (up to four times the heap): tightening therefore collects once, at the
// start of the catch-up, through V8's gc function (exposed for this one call; --expose-gc adds it to
// new contexts only, not to the app's).
//
// Only while it catches up: V8's flags are the process's, so they apply to the worker threads too, and
// the export's workers, which allocate hard over a small live heap, ran 20% slower under it (npm run
// bench, 26 Nov: 4.48-4.63 s against 3.76-3.80 s). Set at run time because neither shell is launched
// with a V8 command line we control; V8 reads the flag whenever it sets the next collection's limit.
// Node and Electron both keep V8's flags writable after start (--freeze-flags-after-init is off in both,
// for v8.setFlagsFromString). test/bench/drain.ts measures variants of it (MD_DRAIN_V8_FLAGS).
import v8 from 'node:v8';
import vm from 'node:vm';

const CATCHING_UP_V8_FLAG = '--heap-growing-percent=20';
const DEFAULT_V8_FLAG = '--heap-growing-percent=0';

/**
 * How far behind a desk must be for the heap to be tightened: a backlog, not the second or two a desk
 * following a busy team falls behind between pulls. Tightening collects once (30-50 ms of the main
 * thread), and done at every short catch-up it cost 8 desks following 300 callbacks/s their lag: p95
 * 2.4-3.6 s instead of 0.7-1.8 s (bench:follow, same hour).
 */
const BACKLOG_EVENTS = 5_000;

let tight = false;

/**
 * Tightens the heap's growth once the desk is `behind` by a backlog, and gives V8 its default back once it
 * has caught up (`behind` 0).
 */
export function heapWhileCatchingUp(behind: number): void {
  const want = tight ? behind > 0 : behind >= BACKLOG_EVENTS;
  if (want === tight) return;
  tight = want;
  v8.setFlagsFromString(want ? CATCHING_UP_V8_FLAG : DEFAULT_V8_FLAG);
  if (want) collectNow();
}

let gc: (() => void) | undefined;

/** One full collection now, so the tightened flag sets the next limit from what is live. */
function collectNow(): void {
  try {
    if (!gc) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
      v8.setFlagsFromString('--no-expose-gc');
    }
    gc();
  } catch {
    // A runtime without it only keeps its heap larger until its next full collection: nothing to tell.
  }
}
