import type { Core } from '../../app/core.js';
import type { reconcileChannels } from '../contract/reconcile.js';
import type { HandlersFor } from './types.js';
import {
  balanceMovement,
  getDetail,
  getSummary,
  listAudit,
  listExceptions,
  listOrphans,
  reconcileAllInWorker,
  resolveException,
  ReconcileError,
} from '../../reconcile/index.js';

export const reconcileHandlers = (core: Core): HandlersFor<typeof reconcileChannels> => {
  const opts = () => ({ now: core.clock.now(), stalePendingAfterMs: core.settings().stalePendingAfterMs });
  let running: Promise<{ collections: number; exceptions: number }> | null = null;
  return {
    'reconcile.summary': () => getSummary(core.db, opts()),
    'reconcile.exceptions': (q) => listExceptions(core.db, q, opts()),
    'reconcile.orphans': (q) => listOrphans(core.db, q),
    'reconcile.detail': ({ collectionId }) => getDetail(core.db, collectionId, opts()),
    'reconcile.resolve': ({ collectionId, orphanEventId, note }) => {
      const actor = core.settings().operatorName.trim();
      if (!actor) throw new ReconcileError('validation', 'set the operator name in Settings first: a resolution records who made it', 'operator');
      return resolveException(
        core.db,
        { ...(collectionId !== undefined ? { collectionId } : {}), ...(orphanEventId !== undefined ? { orphanEventId } : {}), note, actor },
        opts(),
      );
    },
    'reconcile.audit': (q) => listAudit(core.db, q),
    'reconcile.run': (_req, ctx) => {
      // One full run at a time; a second request joins the one in flight.
      // On a worker thread: the window stays responsive during a million-row pass.
      running ??= reconcileAllInWorker(core.db.name, {
        ...opts(),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        onProgress: (p) => core.events.emit('reconcile.progress', p),
      }).finally(() => {
        running = null;
      });
      return running;
    },
    'reconcile.balanceMovement': (q) => balanceMovement(core.db, { ...q, now: core.clock.now() }),
  };
};
