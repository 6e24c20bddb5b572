// The renderer push: the one subscriber of main's own events (main/app/events.ts) that tells the window
// what to reload, in the contract's DeskEvents. Each shell forwards what this gives it to its window,
// paced here for both shells alike: the "something changed, read it again" events reach a window at most
// PUSH_EVERY_MS apart, the ones that came meanwhile merged into one (a desk catching up applies thousands
// of events a second, and each push costs the window a re-read).
import { realSleep, systemClock, type Clock, type Sleep } from '../clock.js';
import { CHANGED_LIST_MAX, type AppEventBus, type AppEventName, type AppEvents } from '../app/events.js';
import type { DeskEventName, DeskEvents } from './contract/index.js';

export type DeskEventSender = <E extends DeskEventName>(event: E, payload: DeskEvents[E]) => void;

/** One line per internal event: what the window is told about it. A new internal event fails to compile until it has one. */
const forward: { [E in AppEventName]: (p: AppEvents[E], send: DeskEventSender) => void } = {
  'collection.changed': (p, send) => send('collections.updated', { changed: [p], many: false }),
  'collections.changed': (p, send) => send('collections.updated', p),
  'callbacks.ingested': (p, send) => send('callbacks.ingested', p),
  'balances.polled': (p, send) => send('balances.updated', p),
  'options.polled': (p, send) => send('options.updated', p),
  'settings.changed': (p, send) => send('settings.changed', p),
  'profile.switched': (p, send) => send('app.profileChanged', p),
  'status.changed': (p, send) => send('app.status', p),
  'lock.changed': (p, send) => send('lock.changed', p),
  // The lock it causes is what the window sees ('lock.changed'), with the notice that says why.
  'team.signedOut': () => undefined,
  // Same database, same screens: the window sees the lock it causes and the status that follows.
  'workspace.reopened': () => undefined,
  notice: (p, send) => send('app.notice', p),
  'reports.progress': (p, send) => send('reports.progress', p),
  'reconcile.progress': (p, send) => send('reconcile.progress', p),
};

/** At most one paced send per this many ms to a window (4 a second). */
export const PUSH_EVERY_MS = 250;

type Merge<E extends DeskEventName> = (older: DeskEvents[E], newer: DeskEvents[E]) => DeskEvents[E];

/**
 * The paced events and how two of them waiting for the same window become one. Every other event (a
 * notice, the status, the lock, progress) is sent at once: each says something of its own.
 */
const merge: { [E in DeskEventName]?: Merge<E> } = {
  'collections.updated': (a, b) => {
    // Each collection once, with its newest status; past the bound, "many" with the newest ones listed.
    const byId = new Map<number, DeskEvents['collections.updated']['changed'][number]>();
    for (const c of [...a.changed, ...b.changed]) {
      byId.delete(c.id);
      byId.set(c.id, c);
    }
    const all = [...byId.values()];
    return {
      changed: all.slice(-CHANGED_LIST_MAX),
      many: a.many || b.many || all.length > CHANGED_LIST_MAX,
    };
  },
  // One delivery's reference while they are all the same one; else null: "read again, whatever it was".
  'callbacks.ingested': (a, b) =>
    a.reference === b.reference && a.result === b.result ? b : { result: b.result, reference: null },
  'balances.updated': (a, b) => ({ outcome: b.outcome, changed: a.changed + b.changed }),
  'options.updated': (a, b) => ({ outcome: b.outcome, changed: a.changed + b.changed }),
};

export interface PushPacing {
  clock?: Clock;
  sleep?: Sleep;
  /** Default PUSH_EVERY_MS. */
  everyMs?: number;
}

/**
 * Forwards main's events to `send` as DeskEvents, one subscription per window; returns the unsubscribe
 * function (which drops what is still waiting: the window is gone).
 *
 * Paced events: the first after a quiet spell is sent at once; those that follow within `everyMs` wait,
 * merged per event, and are sent together when it has passed, so the last change always arrives.
 */
export function pushToRenderer(bus: AppEventBus, send: DeskEventSender, pacing: PushPacing = {}): () => void {
  const clock = pacing.clock ?? systemClock;
  const sleep = pacing.sleep ?? realSleep;
  const everyMs = pacing.everyMs ?? PUSH_EVERY_MS;
  const waiting = new Map<DeskEventName, unknown>();
  let lastSentAt = -Infinity;
  let timer: AbortController | null = null;

  const flush = () => {
    timer = null;
    lastSentAt = clock.now();
    const due = [...waiting];
    waiting.clear();
    for (const [event, payload] of due) (send as (e: DeskEventName, p: unknown) => void)(event, payload);
  };

  const paced: DeskEventSender = (event, payload) => {
    const m = merge[event] as Merge<typeof event> | undefined;
    if (!m) return send(event, payload);
    const older = waiting.get(event) as DeskEvents[typeof event] | undefined;
    waiting.set(event, older === undefined ? payload : m(older, payload));
    if (timer) return;
    const wait = lastSentAt + everyMs - clock.now();
    if (wait <= 0) return flush();
    const t = new AbortController();
    timer = t;
    sleep(wait, t.signal).then(
      () => {
        if (timer === t) flush();
      },
      () => undefined, // unsubscribed: the window is gone
    );
  };

  const off = bus.subscribe((event, payload) =>
    (forward[event] as (p: unknown, s: DeskEventSender) => void)(payload, paced),
  );
  return () => {
    off();
    timer?.abort();
    timer = null;
    waiting.clear();
  };
}
