// How a desk's main process keeps its heap small. It lives all day and, following a busy team, allocates
// a great deal of short-lived data (pulled pages, pushes to the window, the screens' re-reads) while
// what it keeps stays about 50 MB. V8's default lets the heap grow to up to four times what survived the
// last full collection before it collects again: a desk draining 50,000 events held 182 MB of V8 heap
// and 310 MiB resident, of which a forced collection left 49 MB (bench:follow's backlog, 26 Nov).
// `--optimize-for-size` makes V8 grow the heap more slowly and collect sooner: 166-171 MiB resident at
// the same drain. Its CPU cost is measured in docs/benchmarks.md (test/bench/drain.ts variants).
//
// Set at run time, first thing in each shell's entry, because neither shell is launched with a V8
// command line we control (a packaged Electron app is started by the OS). V8 reads this flag at each
// collection, so it applies from then on. Node and Electron both keep V8's flags writable after start
// (V8's --freeze-flags-after-init is off in both, for v8.setFlagsFromString).
import v8 from 'node:v8';

export const DESK_V8_FLAGS = '--optimize-for-size';

export function keepDeskHeapSmall(): void {
  v8.setFlagsFromString(DESK_V8_FLAGS);
}
