// How a desk's main process keeps its heap small. It lives all day and, following a busy team, allocates
// a great deal of short-lived data (pulled pages, pushes to the window, the screens' re-reads) while
// what it keeps stays about 50 MB. V8's default lets the heap grow to up to four times what survived the
// last full collection before it collects again: a desk draining 50,000 events held 182 MB of V8 heap
// and 310 MiB resident, of which a forced collection left 49 MB (bench:follow's backlog, 26 Nov).
//
// A growing factor of 1.2 collects sooner. Measured on 26 Nov (test/bench/drain.ts variants, the same
// run, 50,000 events): peak resident 161-164 MB instead of 190-207, CPU 8.0-8.3 s instead of 7.6-8.2
// (within the noise); the desk in bench:follow peaked at 192 MiB instead of 294-310. V8's
// --optimize-for-size went lower (166-171 MiB in the desk) but cost a quarter more CPU per event.
//
// Set at run time, first thing in each shell's entry, because neither shell is launched with a V8
// command line we control (a packaged Electron app is started by the OS). V8 reads this flag whenever
// it sets the next collection's limit, so it applies from then on. Node and Electron both keep V8's
// flags writable after start (--freeze-flags-after-init is off in both, for v8.setFlagsFromString).
import v8 from 'node:v8';

export const DESK_V8_FLAGS = '--heap-growing-percent=20';

export function keepDeskHeapSmall(): void {
  v8.setFlagsFromString(DESK_V8_FLAGS);
}
