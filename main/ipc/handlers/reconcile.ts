import type { Core } from '../../app/core.js';
import type { reconcileChannels } from '../contract/reconcile.js';
import type { HandlersFor } from './types.js';
import {
  balanceMovement,
  getDetail,
  getSummary,
  listAudit,
  listExceptions,
  listCurrencies,
  listOrphanCallbacks,
} from '../../reconcile/index.js';
import { resolve } from '../../operations/resolve.js';
import { fullRuns } from '../../operations/reconcile.js';
import { listSecurityLog } from '../../callbacks/security-log.js';

/** What these handlers call on the desk: named, not the whole Core. */
export type ReconcileDeps = Pick<
  Core,
  'clock' | 'db' | 'events' | 'ledger' | 'onClose' | 'recordTeamFirst' | 'settings' | 'team'
>;

export const reconcileHandlers = (core: ReconcileDeps): HandlersFor<typeof reconcileChannels> => {
  const opts = () => ({ now: core.clock.now(), stalePendingAfterMs: core.settings().stalePendingAfterMs });
  // The full run in flight (one at a time), cancellable by the id the renderer gave it.
  const runs = fullRuns({
    db: core.db,
    clock: core.clock,
    stalePendingAfterMs: () => core.settings().stalePendingAfterMs,
  });
  core.onClose(() => runs.cancelAll());
  return {
    'reconcile.summary': () => getSummary(core.db, opts()),
    'reconcile.exceptions': (q) => listExceptions(core.db, q, opts()),
    'reconcile.currencies': () => listCurrencies(core.db),
    'reconcile.orphans': (q) => listOrphanCallbacks(core.db, q),
    'reconcile.detail': ({ collectionId }) => getDetail(core.db, collectionId, opts()),
    // The operation's rules are operations/resolve.ts: this names what it needs from the desk.
    'reconcile.resolve': (req) => {
      const s = core.settings();
      const team = s.profile === 'team';
      return resolve(
        {
          db: core.db,
          ledger: core.ledger,
          reconcileOptions: opts(),
          operatorName: s.operatorName,
          team: team
            ? {
                login: s.teamLogin || s.operatorName,
                recordFirst: (evs, what) => core.recordTeamFirst(evs, what),
                pullNow: () =>
                  void core
                    .team()
                    ?.sync.pullNow()
                    .catch(() => undefined),
              }
            : null,
        },
        req,
      );
    },
    'reconcile.audit': (q) => listAudit(core.db, q),
    'reconcile.run': ({ runId }, ctx) =>
      runs.run(runId, {
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        onProgress: (p) => core.events.emit('reconcile.progress', p),
      }),
    'reconcile.cancelRun': ({ runId }) => ({ cancelled: runs.cancel(runId) }),
    'reconcile.balanceMovement': (q) => balanceMovement(core.db, { ...q, now: core.clock.now() }),
    'reconcile.securityLog': (q) => listSecurityLog(core.db, q),
  };
};
