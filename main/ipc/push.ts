// The renderer push: the one subscriber of main's own events (main/app/events.ts) that tells the window
// what to reload, in the contract's DeskEvents. Each shell forwards what this gives it to its window.
import type { AppEventBus, AppEventName, AppEvents } from '../app/events.js';
import type { DeskEventName, DeskEvents } from './contract/index.js';

export type DeskEventSender = <E extends DeskEventName>(event: E, payload: DeskEvents[E]) => void;

/** One line per internal event: what the window is told about it. A new internal event fails to compile until it has one. */
const forward: { [E in AppEventName]: (p: AppEvents[E], send: DeskEventSender) => void } = {
  'collection.changed': (p, send) => send('collections.updated', p),
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

/** Forwards main's events to `send` as DeskEvents; returns the unsubscribe function. */
export function pushToRenderer(bus: AppEventBus, send: DeskEventSender): () => void {
  return bus.subscribe((event, payload) => (forward[event] as (p: unknown, s: DeskEventSender) => void)(payload, send));
}
