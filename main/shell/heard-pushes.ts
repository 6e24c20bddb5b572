// Which of the beat's pushes a shell's window listens to (the Chromium shell's init script and the Electron
// preload both say it). A pulled batch's `collections.updated`
// goes four times a second while a team is busy, and each message to the page costs Chromium about 3 ms of
// CPU even when no screen listens for it (Balances, Take payment): bench:follow, docs/benchmarks.md. The
// window says which events it has listeners for (the init script, whenever the first listener of one is
// added or the last removed); such a push is held back while nobody listens. It is never lost: when a
// listener comes (a screen opens, and may have read before main heard of it), the window is told "many
// changed", which makes every listening screen read again once; a new document (a reload) says so as its
// screens start listening, and what was held back meanwhile is told the same way. Until the window first
// says, everything is sent, as before. Every other event is sent whoever listens: few, and each says
// something of its own.
import type { DeskEvents } from '../ipc/contract/index.js';

/** The one push held back while nobody listens, and what tells a new listener it missed some. */
const HELD = 'collections.updated';
const MISSED: DeskEvents['collections.updated'] = { changed: [], many: true };

export interface HeardPushes {
  /** Whether to send this push now (false: nobody in the window listens for it; remembered). */
  admit(name: string): boolean;
  /** The window's events with listeners (JSON text of names); the pushes to send now for what was held back. */
  heard(names: unknown): (readonly [string, unknown])[];
}

export function heardPushes(): HeardPushes {
  /** null: not told (send everything). */
  let listening: ReadonlySet<string> | null = null;
  let missed = false;
  return {
    admit(name) {
      if (name !== HELD || listening === null || listening.has(name)) return true;
      missed = true;
      return false;
    },
    heard(names) {
      let parsed: unknown;
      try {
        parsed = typeof names === 'string' ? JSON.parse(names) : null;
      } catch {
        parsed = null;
      }
      // Not a list of names: the window is not the app's (or a newer one); send everything, as before.
      if (!Array.isArray(parsed) || !parsed.every((n) => typeof n === 'string')) {
        listening = null;
      } else listening = new Set(parsed);
      if (!missed || (listening !== null && !listening.has(HELD))) return [];
      missed = false;
      return [[HELD, MISSED]];
    },
  };
}
