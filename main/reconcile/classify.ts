// Pure classification of one collection from everything every source said about it (DESIGN.md,
// "Reconciliation"). No I/O: reconcile.ts feeds it rows; tests feed it constructed histories.
import { isFinal } from '../collections/model.js';
import { toMinor } from '../money/index.js';
import { callbackBody } from './callback-body.js';
import type { ReconKind } from './types.shared.js';
import { STALE_PENDING_AFTER_MS } from '../store/sqlite/stale-pending.js';
import { RECON_KINDS, isExceptionKind } from '../store/sqlite/reconcile/kinds.shared.js';
import type { ReconCollection, ReconEvent } from '../store/sqlite/reconcile/histories.js';

// The kinds, their priority order and which are exceptions: the reconciliation table's vocabulary
// (main/store/sqlite/reconcile/kinds.shared.ts). What raises each kind is decided here.
export { RECON_KINDS, EXCEPTION_KINDS, isExceptionKind } from '../store/sqlite/reconcile/kinds.shared.js';
export type { ReconKind } from './types.shared.js';
// A collection and its events as the rules read them: the store's rows (histories.ts).
export type { ReconCollection, ReconEvent };

export const KIND_LABELS: Record<ReconKind, string> = {
  matched: 'Matched',
  pending: 'Pending',
  stale_pending: 'Stale pending (no outcome in time)',
  redirect_callback_disagree: 'Redirect and callback disagree',
  final_status_changed: 'Final status changed',
  amount_mismatch: 'Amount differs from the intent',
  currency_mismatch: 'Currency differs from the intent',
  bad_signature: 'Bad or missing signature',
  unknown_outcome: 'Unknown outcome of initialize',
  rejected: 'Rejected by the service',
};

export interface ClassifyOptions {
  now: number;
  /** A collection with no outcome this long after it was sent is stale_pending. */
  stalePendingAfterMs: number;
}

export interface SourceStatuses {
  initiate: string | null;
  redirect: string | null;
  callback: string | null;
  import: string | null;
  manual: string | null;
}

export interface Classification {
  outcome: ReconKind;
  kinds: ReconKind[];
  /** Exception kinds not covered by a later resolution. */
  openKinds: ReconKind[];
  isException: boolean;
  lastEventId: number | null;
  staleAt: number | null;
  resolvedByEventId: number | null;
  resolutionNote: string | null;
  sources: SourceStatuses;
  completedAt: number | null;
}

/** The stalePendingAfterMs setting's default (its bounds are the setting's: main/store/sqlite/stale-pending.ts). */
export const DEFAULT_STALE_PENDING_AFTER_MS: number = STALE_PENDING_AFTER_MS.default;

const SIGNED_SOURCES = new Set(['redirect', 'callback', 'import']);
const OUTCOME_KINDS = new Set(['outcome', 'final_status_changed', 'manual_status']);

/** What a callback-side event says about amount and currency: the event's columns, else its payload. */
function reportedAmount(
  e: ReconEvent,
  intentCurrency: string,
): { amount: number | null; currency: string | null; bad: boolean } {
  if (e.amount_minor !== null) return { amount: e.amount_minor, currency: e.currency, bad: false };
  const body = callbackBody(e.payload);
  if (!body) return { amount: null, currency: e.currency, bad: false };
  const currency = e.currency ?? (typeof body.request_currency === 'string' ? body.request_currency : null);
  if (body.request_amount === undefined || body.request_amount === null) return { amount: null, currency, bad: false };
  try {
    return { amount: toMinor(body.request_amount, currency ?? intentCurrency, 'request_amount'), currency, bad: false };
  } catch {
    // An amount we cannot read as the currency's decimals is, for reconciliation, not the intent's amount.
    return { amount: null, currency, bad: true };
  }
}

export function classify(c: ReconCollection, events: readonly ReconEvent[], opts: ClassifyOptions): Classification {
  const sources: SourceStatuses = { initiate: null, redirect: null, callback: null, import: null, manual: null };
  const trigger = new Map<ReconKind, number>(); // exception kind -> the latest event that raised it
  const raise = (k: ReconKind, id: number) => trigger.set(k, Math.max(trigger.get(k) ?? 0, id));

  let lastEventId: number | null = null;
  let lastNonResolutionId = 0;
  let lastResolution: ReconEvent | null = null;
  let lastInitiateKind: string | null = null;
  let lastInitiateId = 0;
  let sentAt: number | null = null;
  let rejected = false;
  let completedAt: number | null = null;
  let hasConfirmedOutcome = false; // a verified callback/import outcome, or a person's manual_status
  const callbackStatuses: string[] = []; // distinct, in arrival order
  let lastCallbackOutcomeId = 0;
  const redirectOutcomes: ReconEvent[] = [];

  for (const e of events) {
    lastEventId = Math.max(lastEventId ?? 0, e.id);
    if (e.kind === 'resolution') {
      if (!lastResolution || e.id > lastResolution.id) lastResolution = e;
      continue;
    }
    lastNonResolutionId = Math.max(lastNonResolutionId, e.id);

    const signedSource = SIGNED_SOURCES.has(e.source);
    if (
      e.source === 'security' ||
      e.kind === 'bad_signature' ||
      (signedSource && (e.signature === 'invalid' || e.signature === 'missing'))
    ) {
      raise('bad_signature', e.id);
      continue; // an unverified report changes nothing else
    }

    if (e.source === 'initiate') {
      lastInitiateKind = e.kind;
      lastInitiateId = e.id;
      sources.initiate = e.status ?? sources.initiate;
      if (e.kind === 'initialize_rejected') rejected = true;
      if (e.kind === 'initialize_accepted' || e.kind === 'initialize_exists' || e.kind === 'initialize_unknown') {
        sentAt = sentAt === null ? e.received_at : Math.max(sentAt, e.received_at);
      }
      continue;
    }

    // appendEvent stores a source's changed answer as kind 'final_status_changed': still an outcome.
    const isOutcome = OUTCOME_KINDS.has(e.kind) && isFinal(e.status);
    if (!isOutcome) continue;
    const status = e.status!;

    if (e.source === 'manual') {
      sources.manual = status;
      hasConfirmedOutcome = true;
      continue;
    }
    if (e.source === 'redirect') {
      sources.redirect = status;
      redirectOutcomes.push(e);
      continue;
    }
    if (e.source === 'callback' || e.source === 'import') {
      if (e.source === 'callback') sources.callback = status;
      else sources.import = status;
      hasConfirmedOutcome = true;
      lastCallbackOutcomeId = Math.max(lastCallbackOutcomeId, e.id);
      if (!callbackStatuses.includes(status)) {
        callbackStatuses.push(status);
        if (callbackStatuses.length > 1) raise('final_status_changed', e.id);
      }
      if (status === 'COMPLETED' && completedAt === null) completedAt = e.received_at;
      const r = reportedAmount(e, c.currency);
      if (r.currency !== null && r.currency !== c.currency) raise('currency_mismatch', e.id);
      else if (r.bad || (r.amount !== null && r.amount !== c.amount_minor)) raise('amount_mismatch', e.id);
    }
  }

  // A verified redirect whose status no callback-side report shares.
  if (callbackStatuses.length > 0) {
    for (const r of redirectOutcomes) {
      if (!callbackStatuses.includes(r.status!))
        raise('redirect_callback_disagree', Math.max(r.id, lastCallbackOutcomeId));
    }
  }

  let staleAt: number | null = null;
  const kinds = new Set<ReconKind>(trigger.keys());
  if (!hasConfirmedOutcome) {
    if (lastInitiateKind === 'initialize_unknown') {
      raise('unknown_outcome', lastInitiateId);
      kinds.add('unknown_outcome');
    } else if (rejected && lastInitiateKind === 'initialize_rejected') {
      kinds.add('rejected');
    } else {
      staleAt = (sentAt ?? c.created_at) + opts.stalePendingAfterMs;
      if (opts.now >= staleAt) {
        raise('stale_pending', lastNonResolutionId);
        kinds.add('stale_pending');
        staleAt = null;
      } else {
        kinds.add('pending');
      }
    }
  }
  if (kinds.size === 0) kinds.add('matched');

  const ordered = RECON_KINDS.filter((k) => kinds.has(k));
  const resolvedUpTo = lastResolution?.id ?? 0;
  const openKinds = ordered.filter((k) => isExceptionKind(k) && (trigger.get(k) ?? 0) > resolvedUpTo);
  return {
    outcome: ordered[0]!,
    kinds: ordered,
    openKinds,
    isException: openKinds.length > 0,
    lastEventId,
    staleAt,
    resolvedByEventId: lastResolution?.id ?? null,
    resolutionNote: lastResolution?.note ?? null,
    sources,
    completedAt,
  };
}
