// When a screen reads its data again after main says something changed (renderer/src/hooks.ts): only
// if the change concerns what it shows, one read at a time with at most one more after it, and not while
// the person is typing in a field or has a dialog open (then once they stop). A desk following a busy
// team hears several changes a second; re-reading a 1,000-row list on each cost the window 15-25 ms.
// The decisions are plain functions here (tested without a DOM: test/shell/reread.test.ts).
import type { DeskEventName, DeskEvents } from '../../main/ipc/contract/index.js';

/** A collection a push names: by id and status (collections.updated), or by reference only (a delivery). */
export interface Touched {
  id?: number;
  reference: string;
  status?: string;
}

/** Whether a change to this collection could change what the screen shows. */
export type Shows = (t: Touched) => boolean;

/**
 * Whether `event` is worth a re-read for a screen that shows `shows` (none: the screen shows aggregates,
 * or cannot tell, so every change concerns it). "Many changed", or a delivery without a reference (an
 * import, a bulk copy), concerns every screen.
 */
export function concerns<E extends DeskEventName>(event: E, payload: DeskEvents[E], shows: Shows | undefined): boolean {
  if (!shows) return true;
  if (event === 'collections.updated') {
    const p = payload as DeskEvents['collections.updated'];
    return p.many || p.changed.some((c) => shows(c));
  }
  if (event === 'callbacks.ingested') {
    const p = payload as DeskEvents['callbacks.ingested'];
    return p.reference === null || shows({ reference: p.reference });
  }
  return true;
}

export interface RereadGateOptions {
  /** The re-read itself; the gate starts the next one only after it settles. */
  run: () => Promise<unknown>;
  /** True while a re-read now would disturb the person (typing in a field, a dialog open). */
  held: () => boolean;
  /** How long a held re-read waits before it looks again (ms). */
  retryMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

export interface RereadGate {
  /** Something this screen shows changed: read again, now or as soon as allowed. */
  request(): void;
  dispose(): void;
}

/** One re-read in flight and at most one waiting behind it, however many requests arrive meanwhile. */
export function createRereadGate(o: RereadGateOptions): RereadGate {
  const retryMs = o.retryMs ?? 300;
  const setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  let wanted = false;
  let inFlight = false;
  let holdTimer: unknown = null;
  let disposed = false;

  const pump = (): void => {
    if (disposed || inFlight || holdTimer !== null || !wanted) return;
    if (o.held()) {
      holdTimer = setTimer(() => {
        holdTimer = null;
        pump();
      }, retryMs);
      return;
    }
    wanted = false;
    inFlight = true;
    void Promise.resolve()
      .then(o.run)
      .catch(() => undefined) // the read shows its own error
      .finally(() => {
        inFlight = false;
        pump();
      });
  };

  return {
    request() {
      wanted = true;
      pump();
    },
    dispose() {
      disposed = true;
      if (holdTimer !== null) clearTimer(holdTimer);
      holdTimer = null;
    },
  };
}

/** A key or an edit this recent in a focused field means the person is typing. */
const TYPING_MS = 1_500;

let lastInputAt = -Infinity;
// Keys and edits anywhere in the page, from the window's start (so the first push already knows).
if (typeof document !== 'undefined') {
  const mark = () => (lastInputAt = performance.now());
  document.addEventListener('keydown', mark, true);
  document.addEventListener('input', mark, true);
}

/** The window's answer for `held`: a dialog is open, or the person typed in the focused field within TYPING_MS. */
export function personIsBusy(): boolean {
  if (typeof document === 'undefined') return false;
  if (document.querySelector('dialog[open]')) return true;
  const a = document.activeElement;
  const editing = a instanceof HTMLElement && (a.matches('input, textarea, select') || a.isContentEditable);
  return editing && performance.now() - lastInputAt < TYPING_MS;
}
