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
  reconcileAllInWorker,
  ReconcileError,
} from '../../reconcile/index.js';
import { resolve } from '../../operations/resolve.js';
import { listSecurityLog } from '../../callbacks/security-log.js';

export const reconcileHandlers = (core: Core): HandlersFor<typeof reconcileChannels> => {
  const opts = () => ({ now: core.clock.now(), stalePendingAfterMs: core.settings().stalePendingAfterMs });
  // The full run in flight (one at a time), cancellable by the id the renderer gave it.
  let run: { runId: string; ac: AbortController } | null = null;
  core.onClose(() => run?.ac.abort());
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
    'reconcile.run': async ({ runId }, ctx) => {
      if (run)
        throw new ReconcileError('conflict', 'a full reconciliation is already running; wait for it or cancel it');
      const ac = new AbortController();
      run = { runId, ac };
      const onGone = () => ac.abort();
      if (ctx.signal?.aborted) ac.abort();
      else ctx.signal?.addEventListener('abort', onGone, { once: true });
      try {
        // On a worker thread: the window stays responsive during a million-row pass.
        return await reconcileAllInWorker(core.db.name, {
          ...opts(),
          signal: ac.signal,
          onProgress: (p) => core.events.emit('reconcile.progress', p),
        });
      } finally {
        ctx.signal?.removeEventListener('abort', onGone);
        run = null;
      }
    },
    'reconcile.cancelRun': ({ runId }) => {
      if (run?.runId !== runId) return { cancelled: false };
      run.ac.abort();
      return { cancelled: true };
    },
    'reconcile.balanceMovement': (q) => balanceMovement(core.db, { ...q, now: core.clock.now() }),
    'reconcile.securityLog': (q) => listSecurityLog(core.db, q),
  };
};
