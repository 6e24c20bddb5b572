// main's own events: a capability says what happened, and whoever cares subscribes. The renderer push
// (main/ipc/push.ts) is one subscriber that turns these into the window's DeskEvents; tests and logs
// may be others. Typed here, not by the renderer's contract, so what the window is told can change
// without changing what main says to itself.
import type { Profile } from '../settings/index.js';
import { english, type Words } from '../words/words.shared.js';

export interface Notice {
  level: 'info' | 'warning' | 'error';
  message: string;
  words?: Words;
}

/** A notice made from words: the window says them in the person's language; `message` is their English. */
export function noticeOf(level: Notice['level'], w: Words): Notice {
  return { level, message: english(w), words: w };
}
import type { ExportProgress } from '../reports/index.js';
import type { Progress } from '../reconcile/index.js';
import type { AppStatus } from './status.js';

/** A collection whose stored state changed, with its status after the change. */
export interface ChangedCollection {
  id: number;
  reference: string;
  status: string;
}

/**
 * Collections that changed together, said once. `changed` lists at most CHANGED_LIST_MAX of them (the
 * newest); `many`: more changed than it lists, so whoever shows collections reads them again once.
 */
export interface ChangedCollections {
  changed: ChangedCollection[];
  many: boolean;
}

/** A notice lists at most this many collections: past it, a screen re-reads anyway (its page is 200 rows). */
export const CHANGED_LIST_MAX = 200;

/** The one notice for what a batch changed: listed while that is short, else "many". */
export function changedCollections(list: readonly ChangedCollection[]): ChangedCollections {
  return list.length > CHANGED_LIST_MAX ? { changed: [], many: true } : { changed: [...list], many: false };
}

export interface AppEvents {
  /** A collection's stored state changed during a charge (PENDING, window closed, redirect captured). */
  'collection.changed': ChangedCollection;
  /**
   * One operation of the window (a charge, a confirmed repeat, a re-send, by the id the window gave it)
   * moved: its own collection's reference, from the moment its intent was recorded, and status. Never
   * about another operation's or another desk's collection (operations/charge.ts).
   */
  'payment.progress': { operationId: string; reference: string; status: string };
  /**
   * Collections changed behind the screens, one notice per batch: a pulled batch of the team record, or
   * this desk's events the team database refused.
   */
  'collections.changed': ChangedCollections;
  /**
   * Events with no collection (orphan callbacks, or their resolutions) were stored behind the screens, by
   * a pulled batch of the team record: whoever lists orphans reads them again.
   */
  'orphans.changed': { stored: number };
  /** Events were stored: one delivery at the local receiver, an imported file (result 'import'), or a new team desk's bulk copy of the team history (result 'team-copy'). */
  'callbacks.ingested': { result: string; reference: string | null };
  /** A balances poll finished (ok or not); changed: snapshots written. */
  'balances.polled': { outcome: 'ok' | 'error'; changed: number };
  /** A payment options poll finished (ok or not); changed: options cached. */
  'options.polled': { outcome: 'ok' | 'error'; changed: number };
  /** Settings of the active profile were saved. */
  'settings.changed': { profile: Profile };
  /** Another profile's workspace is now the active one. */
  'profile.switched': { profile: Profile };
  /**
   * The active profile's workspace was started again on the same database, because what it connects
   * to changed (a team desk's database URL or login): a team desk then signs in again.
   */
  'workspace.reopened': { profile: Profile };
  /** The connection state, profile or last poll changed. */
  'status.changed': AppStatus;
  /** The team database refused an open session's sign-in: the app locks until the operator signs in again. */
  'team.signedOut': { login: string };
  /**
   * The team database announced a change to an operator (team migration 14): added, disabled, enabled,
   * re-roled, a new password. `login` null: changes may have gone unheard (the listener connected again).
   */
  'team.operatorsChanged': { login: string | null };
  /** The idle lock engaged or was released. */
  'lock.changed': { locked: boolean };
  /** Something the person at the desk should read. */
  /** What a person is told: its words for the window, their English for logs and tests. */
  notice: Notice;
  /** An export in progress. */
  'reports.progress': ExportProgress & { exportId: string };
  /** A full reconciliation in progress. */
  'reconcile.progress': Progress;
}

export type AppEventName = keyof AppEvents;

export type AppEventListener = <E extends AppEventName>(event: E, payload: AppEvents[E]) => void;

export interface AppEventBus {
  emit<E extends AppEventName>(event: E, payload: AppEvents[E]): void;
  /** Every event; returns an unsubscribe function. */
  subscribe(listener: AppEventListener): () => void;
}

/** A listener that throws is reported to onListenerError and never stops the others. */
export function createEventBus(onListenerError?: (e: unknown) => void): AppEventBus {
  const listeners = new Set<AppEventListener>();
  return {
    emit(event, payload) {
      for (const l of [...listeners]) {
        try {
          l(event, payload);
        } catch (e) {
          onListenerError?.(e);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
