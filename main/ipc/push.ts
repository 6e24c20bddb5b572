// The renderer push: the one subscriber of main's own events (main/app/event-bus.ts) that tells the window
// what to reload, in the contract's DeskEvents. Each shell forwards what this gives it to its window,
// paced here for both shells alike: the "something changed, read it again" events of this desk's own work
// (a charge, the local receiver's deliveries, its polls) reach a window at most PUSH_EVERY_MS apart, the
// ones that came meanwhile merged into one. What the team sync says about a pulled batch is paced already,
// by the sync's beat (team/sync/scheduler.ts: one notice per pull, at most one per beat while a backlog
// drains), and is sent at once: one pacing between a pulled batch and the screens, not two.
import { realSleep, systemClock, type Clock, type Sleep } from '../clock.js';
import { CHANGED_LIST_MAX, type AppEventBus, type AppEventName, type AppEvents } from '../app/event-bus.js';
import type { DeskEventName, DeskEvents } from './contract/index.js';

export type DeskEventSender = <E extends DeskEventName>(event: E, payload: DeskEvents[E]) => void;

/**
 * One line per internal event: what the window is told about it, through `send` (paced where the event is)
 * or `sendNow` (paced at its source). A new internal event fails to compile until it has one.
 */
const forward: {
  [E in AppEventName]: (p: AppEvents[E], send: DeskEventSender, sendNow: DeskEventSender) => void;
} = {
  'collection.changed': (p, send) => send('collections.updated', { changed: [p], many: false }),
  // A pulled batch (or this desk's events the team refused): the sync's beat paced it.
  'collections.changed': (p, _send, sendNow) => sendNow('collections.updated', p),
  // Sent at once, never merged: it is the one thing a screen following its own charge listens to.
  'payment.progress': (p, send) => send('payments.progress', p),
  'callbacks.ingested': (p, send) => send('callbacks.ingested', p),
  'orphans.changed': (p, _send, sendNow) => sendNow('orphans.updated', p),
  'balances.polled': (p, send) => send('balances.updated', p),
  'options.polled': (p, send) => send('options.updated', p),
  'settings.changed': (p, send) => send('settings.changed', p),
  'profile.switched': (p, send) => send('app.profileChanged', p),
  'status.changed': (p, send) => send('app.status', p),
  'lock.changed': (p, send) => send('lock.changed', p),
  // The lock it causes is what the window sees ('lock.changed'), with the notice that says why.
  'team.signedOut': () => undefined,
  'team.operatorsChanged': (p, send) => send('team.operatorsChanged', p),
  // Same database, same screens: the window sees the lock it causes and the status that follows.
  'workspace.reopened': () => undefined,
  notice: (p, send) => send('app.notice', p),
  'reports.progress': (p, send) => send('reports.progress', p),
  'reconcile.progress': (p, send) => send('reconcile.progress', p),
};

/** At most one paced send per this many ms to a window (4 a second). */
export const PUSH_EVERY_MS = 250;
/**
 * The status at most once a second: a desk following a busy team has its status change with every pull
 * (last sync, the verified seq), and each change cost the window about 12 ms of rendering, most of what it
 * spent per event followed (bench:follow, docs/benchmarks.md). The first change after a quiet second goes
 * at once, as before.
 */
export const STATUS_EVERY_MS = 1_000;
/**
 * The last status change waits this much longer than the pace asks before it goes on its own. While a team
 * is busy, the status changes with each pull, four a second: the change of the first pull once a second
 * has passed then goes at once, in the same turn as that pull's notice (the Chromium shell sends one
 * turn's pushes as one message), instead of alone a moment before it. Each message costs the window about
 * 3 ms of CPU (bench:follow, docs/benchmarks.md).
 */
export const STATUS_LAST_WAITS_MS = PUSH_EVERY_MS;

/** The payloads of one event waiting for a window, merged as they come; take() gives the one to send. */
interface Waiting<E extends DeskEventName> {
  add(payload: DeskEvents[E]): void;
  take(): DeskEvents[E];
}

/** Waiting payloads where the newer one merges into the older. */
function merged<E extends DeskEventName>(merge: (older: DeskEvents[E], newer: DeskEvents[E]) => DeskEvents[E]) {
  return (): Waiting<E> => {
    let value: DeskEvents[E] | undefined;
    return {
      add: (p) => (value = value === undefined ? p : merge(value, p)),
      take: () => value!,
    };
  };
}

/**
 * The paced events and how those waiting for the same window become one. Every other event (a notice,
 * the lock, progress) is sent at once: each says something of its own.
 */
const paced: { [E in DeskEventName]?: () => Waiting<E> } = {
  // Each collection once, with its newest status; past the bound, "many" with the newest ones listed.
  'collections.updated': () => {
    const byId = new Map<number, DeskEvents['collections.updated']['changed'][number]>();
    let many = false;
    return {
      add(p) {
        many ||= p.many;
        for (const c of p.changed) {
          byId.delete(c.id);
          byId.set(c.id, c);
          if (byId.size > CHANGED_LIST_MAX) {
            byId.delete(byId.keys().next().value!);
            many = true;
          }
        }
      },
      take: () => ({ changed: [...byId.values()], many }),
    };
  },
  // One delivery's reference while they are all the same one; else null: "read again, whatever it was".
  'callbacks.ingested': merged<'callbacks.ingested'>((a, b) =>
    a.reference === b.reference && a.result === b.result ? b : { result: b.result, reference: null },
  ),
  // How many were stored while the window waited: a count, never a list (the screen reads the orphans itself).
  'orphans.updated': merged<'orphans.updated'>((a, b) => ({ stored: a.stored + b.stored })),
  'balances.updated': merged<'balances.updated'>((a, b) => ({ outcome: b.outcome, changed: a.changed + b.changed })),
  'options.updated': merged<'options.updated'>((a, b) => ({ outcome: b.outcome, changed: a.changed + b.changed })),
  // The newest status says it all. A desk following a busy team has its status change with every pull
  // (last pull, seq, how far behind): sent each time, the status bar alone kept the window busy.
  'app.status': merged<'app.status'>((_older, newer) => newer),
  // One operator's login while they are all the same one; else null: "read the list again".
  'team.operatorsChanged': merged<'team.operatorsChanged'>((a, b) => (a.login === b.login ? b : { login: null })),
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
  const events = pacer(send, pacing, pacing.everyMs ?? PUSH_EVERY_MS);
  const status = pacer(send, pacing, STATUS_EVERY_MS, STATUS_LAST_WAITS_MS);
  const pace: DeskEventSender = (event, payload) =>
    (event === 'app.status' ? status.pace : events.pace)(event, payload);
  const off = bus.subscribe((event, payload) =>
    (forward[event] as (p: unknown, s: DeskEventSender, now: DeskEventSender) => void)(payload, pace, send),
  );
  return () => {
    off();
    events.stop();
    status.stop();
  };
}

/**
 * Paces sends at most `everyMs` apart, merging what waits per event; stop() drops what waits. What waits
 * goes with the first send the pace allows; when nothing comes then, the timer sends it `lastWaitsMs` after
 * the pace allowed it.
 */
function pacer(send: DeskEventSender, pacing: PushPacing, everyMs: number, lastWaitsMs = 0) {
  const clock = pacing.clock ?? systemClock;
  const sleep = pacing.sleep ?? realSleep;
  const waiting = new Map<DeskEventName, Waiting<DeskEventName>>();
  let lastSentAt = -Infinity;
  let timer: AbortController | null = null;

  /** Sends what waits, every event even if one send throws; then throws the first error (the bus reports it). */
  const flush = () => {
    timer = null;
    lastSentAt = clock.now();
    const due = [...waiting];
    waiting.clear();
    let failed: { e: unknown } | null = null;
    for (const [event, w] of due) {
      try {
        send(event, w.take());
      } catch (e) {
        failed ??= { e };
      }
    }
    if (failed) throw failed.e;
  };

  const pace: DeskEventSender = (event, payload) => {
    const make = paced[event] as (() => Waiting<typeof event>) | undefined;
    if (!make) return send(event, payload);
    let w = waiting.get(event) as Waiting<typeof event> | undefined;
    if (!w) waiting.set(event, (w = make()) as Waiting<DeskEventName>);
    w.add(payload);
    const wait = lastSentAt + everyMs - clock.now();
    if (wait <= 0) {
      timer?.abort();
      return flush();
    }
    if (timer) return;
    const t = new AbortController();
    timer = t;
    sleep(wait + lastWaitsMs, t.signal)
      .then(
        () => {
          if (timer === t) flush();
        },
        () => undefined, // unsubscribed: the window is gone
      )
      // The shells' senders drop what a closing window cannot take and never throw; should one, the
      // next push still goes (timer was cleared), and this one is not worth an unhandled rejection.
      .catch(() => undefined);
  };

  return {
    pace,
    stop() {
      timer?.abort();
      timer = null;
      waiting.clear();
    },
  };
}
