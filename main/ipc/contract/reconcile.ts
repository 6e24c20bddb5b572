// Reconciliation: summary, exceptions queue (filters, counts by kind), detail with every source side by
// side, resolution with a required note (an appended event), audit of every event, full recompute,
// balance movement. Times in responses are ISO 8601; amounts are integer minor units + currency.
import { z } from 'zod';
import { channel, noRequest } from './define.js';
import { EXCEPTION_KINDS } from '../../reconcile/types.shared.js';
import type {
  AuditEvent,
  ExceptionDetail,
  ResolutionShown,
  ExceptionRow,
  MovementResult,
  OrphanRow,
  ReconcileSummary,
} from '../../reconcile/types.shared.js';

import type { SecurityLogView } from '../../callbacks/security-log-types.shared.js';

export type { SecurityLogView };
export type { AuditEvent, ExceptionDetail, ExceptionRow, MovementResult, OrphanRow, ReconcileSummary, ResolutionShown };

const ms = z.number().int().nonnegative();
const page = {
  offset: z.number().int().nonnegative().optional(),
  limit: z.number().int().min(1).max(1000).optional(),
};

const reconcileExceptionsRequest = z.object({
  kind: z.enum(EXCEPTION_KINDS).optional(),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'errors.zod.currency')
    .optional(),
  from: ms.optional(),
  to: ms.optional(),
  text: z.string().trim().max(100).optional(),
  includeResolved: z.boolean().optional(),
  sort: z.enum(['newest', 'oldest', 'amount']).optional(),
  ...page,
});

const reconcileResolveRequest = z
  .object({
    collectionId: z.number().int().positive().optional(),
    orphanEventId: z.number().int().positive().optional(),
    note: z.string().trim().min(3, 'errors.zod.noteRequired').max(2000),
  })
  .refine((r) => (r.collectionId === undefined) !== (r.orphanEventId === undefined), {
    message: 'errors.zod.collectionOrOrphan',
    path: ['collectionId'],
  });

const reconcileAuditRequest = z.object({
  collectionId: z.number().int().positive().optional(),
  reference: z.string().trim().max(100).optional(),
  source: z.enum(['intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security']).optional(),
  kind: z.string().trim().max(40).optional(),
  from: ms.optional(),
  to: ms.optional(),
  ...page,
});

const reconcileMovementRequest = z.object({
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'errors.zod.currency')
    .optional(),
  from: ms.optional(),
  to: ms.optional(),
  onlyUnexplained: z.boolean().optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

const byId = z.object({ collectionId: z.number().int().positive() });
/** The renderer names its run so it can cancel that run (and only that one). */
const reconcileRunRequest = z.object({ runId: z.string().trim().min(1).max(64) });
const securityLogRequest = z.object({ from: ms.optional(), limit: z.number().int().min(1).max(1000).optional() });
const orphansRequest = z.object({
  includeResolved: z.boolean().optional(),
  /** Only this orphan (its event id), resolved or not: an open panel reads the one it shows. */
  eventId: z.number().int().positive().optional(),
  ...page,
});

export const reconcileChannels = {
  /** Brings results up to date (cheap) and counts: by outcome, open exceptions by kind, orphans. */
  'reconcile.summary': channel<typeof noRequest, ReconcileSummary>(noRequest),
  'reconcile.exceptions': channel<
    typeof reconcileExceptionsRequest,
    { rows: ExceptionRow[]; total: number; countsByKind: Record<string, number> }
  >(reconcileExceptionsRequest),
  /** The merchant's currencies (of its collections and wallets), for the queue's Currency filter. */
  'reconcile.currencies': channel<typeof noRequest, string[]>(noRequest),
  /** Callbacks for references we do not know. */
  'reconcile.orphans': channel<typeof orphansRequest, { rows: OrphanRow[]; total: number }>(orphansRequest),
  'reconcile.detail': channel<typeof byId, ExceptionDetail>(byId),
  /** Appends a 'resolution' event (source manual) by the operator in Settings; never rewrites history. */
  'reconcile.resolve': channel<typeof reconcileResolveRequest, { eventId: number }>(reconcileResolveRequest),
  'reconcile.audit': channel<typeof reconcileAuditRequest, { rows: AuditEvent[]; total: number }>(
    reconcileAuditRequest,
  ),
  /**
   * Full recompute of every collection, on a worker thread (the window stays responsive on a million rows);
   * progress as 'reconcile.progress' events. One run at a time: a second answers error kind 'conflict'.
   * Cancelled (reconcile.cancelRun, the window going away, the app closing) -> error kind 'cancelled';
   * batches already finished are kept.
   */
  'reconcile.run': channel<typeof reconcileRunRequest, { collections: number; exceptions: number }>(
    reconcileRunRequest,
  ),
  'reconcile.cancelRun': channel<typeof reconcileRunRequest, { cancelled: boolean }>(reconcileRunRequest),
  'reconcile.balanceMovement': channel<typeof reconcileMovementRequest, MovementResult>(reconcileMovementRequest),
  /** Refused callback deliveries (bad signature, too large, rate limited...), counted per hour and source; newest first. */
  'reconcile.securityLog': channel<typeof securityLogRequest, SecurityLogView>(securityLogRequest),
};

export type reconcileEvents = {
  'reconcile.progress': { done: number; total: number };
  /**
   * Orphan callbacks (or their resolutions) were stored behind the screens (a pulled batch of the team
   * record): the screens listing orphans or counting them read them again. `stored` is how many.
   */
  'orphans.updated': { stored: number };
};
