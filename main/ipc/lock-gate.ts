// The one check dispatch makes before any handler runs. While locked, only the lock's own channels
// answer; everything else gets kind 'locked'. While unlocked, a call from the window counts as
// activity, except the reads a screen repeats by itself when main pushes an update (balances after
// each poll, lists after a callback): counting those would keep an unattended app open forever.
import type { ChannelName, IpcError } from './contract/index.js';
import type { IdleLock } from '../lock/idle-lock.js';
import { LOCKED_MESSAGE, LOCKED_WORDS } from '../lock/errors.js';

export interface IpcGate {
  /** null lets the call through; an IpcError refuses it. */
  admit(channel: string): IpcError | null;
}

const OPEN_WHILE_LOCKED: ReadonlySet<ChannelName> = new Set<ChannelName>([
  'lock.status',
  'lock.unlock',
  'lock.setPassphrase',
  // The lock screen speaks the desk's language too.
  'app.language',
]);

/** Reads that screens make on their own after a push (useDeskQuery refreshOn, status bar): not activity. */
export const PASSIVE_READS: ReadonlySet<ChannelName> = new Set<ChannelName>([
  'lock.status',
  'app.status',
  'app.info',
  'app.language',
  'balances.latest',
  'balances.history',
  'options.list',
  'payments.options',
  'collections.list',
  'collections.get',
  'reconcile.summary',
  'reconcile.exceptions',
  'reconcile.currencies',
  'reconcile.orphans',
  'reconcile.detail',
  'reconcile.audit',
  'reconcile.balanceMovement',
  'reconcile.securityLog',
  'settings.get',
]);

export function lockGate(lock: IdleLock): IpcGate {
  return {
    admit(channel) {
      // check() first: a call arriving after the idle time is refused, not counted as activity.
      if (lock.check()) {
        return OPEN_WHILE_LOCKED.has(channel as ChannelName)
          ? null
          : { kind: 'locked', message: LOCKED_MESSAGE, words: LOCKED_WORDS };
      }
      if (!PASSIVE_READS.has(channel as ChannelName)) lock.activity();
      return null;
    },
  };
}
