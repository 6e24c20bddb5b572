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

/** What a collection's events said, read in order (readEvents): everything the kinds are decided from. */
interface Reading {
  sources: SourceStatuses;
  /** Exception kind -> the latest event that raised it. */
  trigger: Map<ReconKind, number>;
  lastEventId: number | null;
  lastNonResolutionId: number;
  lastResolution: ReconEvent | null;
  lastInitiateKind: string | null;
  lastInitiateId: number;
  sentAt: number | null;
  rejected: boolean;
  completedAt: number | null;
  /** A verified callback/import outcome, or a person's manual_status. */
  hasConfirmedOutcome: boolean;
  /** The callback side's final statuses: distinct, in arrival order. */
  callbackStatuses: string[];
  /** The callback side's last final status, in event order. */
  lastCallbackStatus: string | null;
  lastCallbackOutcomeId: number;
  redirectOutcomes: ReconEvent[];
}

function raise(r: Reading, k: ReconKind, id: number): void {
  r.trigger.set(k, Math.max(r.trigger.get(k) ?? 0, id));
}

/** An initiate event: the last one's kind, whether the service refused it, and when it was sent. */
function readInitiate(r: Reading, e: ReconEvent): void {
  r.lastInitiateKind = e.kind;
  r.lastInitiateId = e.id;
  r.sources.initiate = e.status ?? r.sources.initiate;
  if (e.kind === 'initialize_rejected') r.rejected = true;
  if (e.kind === 'initialize_accepted' || e.kind === 'initialize_exists' || e.kind === 'initialize_unknown') {
    r.sentAt = r.sentAt === null ? e.received_at : Math.max(r.sentAt, e.received_at);
  }
}

/** A callback-side final outcome: a changed answer, the first COMPLETED, and its amount and currency. */
function readCallbackOutcome(r: Reading, c: ReconCollection, e: ReconEvent, status: string): void {
  if (e.source === 'callback') r.sources.callback = status;
  else r.sources.import = status;
  r.hasConfirmedOutcome = true;
  r.lastCallbackOutcomeId = Math.max(r.lastCallbackOutcomeId, e.id);
  // Every change of the callback side's answer raises it at that event: a change back to an earlier status
  // (the service said it again, callbacks/callback-key.ts) is open for review again after a resolution.
  if (r.lastCallbackStatus !== null && r.lastCallbackStatus !== status) raise(r, 'final_status_changed', e.id);
  r.lastCallbackStatus = status;
  if (!r.callbackStatuses.includes(status)) r.callbackStatuses.push(status);
  if (status === 'COMPLETED' && r.completedAt === null) r.completedAt = e.received_at;
  const reported = reportedAmount(e, c.currency);
  if (reported.currency !== null && reported.currency !== c.currency) raise(r, 'currency_mismatch', e.id);
  else if (reported.bad || (reported.amount !== null && reported.amount !== c.amount_minor))
    raise(r, 'amount_mismatch', e.id);
}

function readEvents(c: ReconCollection, events: readonly ReconEvent[]): Reading {
  const r: Reading = {
    sources: { initiate: null, redirect: null, callback: null, import: null, manual: null },
    trigger: new Map(),
    lastEventId: null,
    lastNonResolutionId: 0,
    lastResolution: null,
    lastInitiateKind: null,
    lastInitiateId: 0,
    sentAt: null,
    rejected: false,
    completedAt: null,
    hasConfirmedOutcome: false,
    callbackStatuses: [],
    lastCallbackStatus: null,
    lastCallbackOutcomeId: 0,
    redirectOutcomes: [],
  };
  for (const e of events) {
    r.lastEventId = Math.max(r.lastEventId ?? 0, e.id);
    if (e.kind === 'resolution') {
      if (!r.lastResolution || e.id > r.lastResolution.id) r.lastResolution = e;
      continue;
    }
    r.lastNonResolutionId = Math.max(r.lastNonResolutionId, e.id);

    const signedSource = SIGNED_SOURCES.has(e.source);
    if (
      e.source === 'security' ||
      e.kind === 'bad_signature' ||
      (signedSource && (e.signature === 'invalid' || e.signature === 'missing'))
    ) {
      raise(r, 'bad_signature', e.id);
      continue; // an unverified report changes nothing else
    }
    if (e.source === 'initiate') {
      readInitiate(r, e);
      continue;
    }

    // The ledger stores a source's changed answer as kind 'final_status_changed': still an outcome.
    const isOutcome = OUTCOME_KINDS.has(e.kind) && isFinal(e.status);
    if (!isOutcome) continue;
    const status = e.status!;
    if (e.source === 'manual') {
      r.sources.manual = status;
      r.hasConfirmedOutcome = true;
    } else if (e.source === 'redirect') {
      r.sources.redirect = status;
      r.redirectOutcomes.push(e);
    } else if (e.source === 'callback' || e.source === 'import') {
      readCallbackOutcome(r, c, e, status);
    }
  }
  return r;
}

/**
 * The kind of a collection no verified outcome confirmed: unknown_outcome, rejected, or pending until
 * its stale time, then stale_pending. Adds it to `kinds`; returns the stale time while pending.
 */
function awaitedKind(r: Reading, c: ReconCollection, opts: ClassifyOptions, kinds: Set<ReconKind>): number | null {
  if (r.lastInitiateKind === 'initialize_unknown') {
    raise(r, 'unknown_outcome', r.lastInitiateId);
    kinds.add('unknown_outcome');
    return null;
  }
  if (r.rejected && r.lastInitiateKind === 'initialize_rejected') {
    kinds.add('rejected');
    return null;
  }
  const staleAt = (r.sentAt ?? c.created_at) + opts.stalePendingAfterMs;
  if (opts.now >= staleAt) {
    raise(r, 'stale_pending', r.lastNonResolutionId);
    kinds.add('stale_pending');
    return null;
  }
  kinds.add('pending');
  return staleAt;
}

export function classify(c: ReconCollection, events: readonly ReconEvent[], opts: ClassifyOptions): Classification {
  const r = readEvents(c, events);

  // A verified redirect whose status no callback-side report shares.
  if (r.callbackStatuses.length > 0) {
    for (const e of r.redirectOutcomes) {
      if (!r.callbackStatuses.includes(e.status!))
        raise(r, 'redirect_callback_disagree', Math.max(e.id, r.lastCallbackOutcomeId));
    }
  }

  const kinds = new Set<ReconKind>(r.trigger.keys());
  const staleAt = r.hasConfirmedOutcome ? null : awaitedKind(r, c, opts, kinds);
  if (kinds.size === 0) kinds.add('matched');

  const ordered = RECON_KINDS.filter((k) => kinds.has(k));
  const resolvedUpTo = r.lastResolution?.id ?? 0;
  const openKinds = ordered.filter((k) => isExceptionKind(k) && (r.trigger.get(k) ?? 0) > resolvedUpTo);
  return {
    outcome: ordered[0]!,
    kinds: ordered,
    openKinds,
    isException: openKinds.length > 0,
    lastEventId: r.lastEventId,
    staleAt,
    resolvedByEventId: r.lastResolution?.id ?? null,
    resolutionNote: r.lastResolution?.note ?? null,
    sources: r.sources,
    completedAt: r.completedAt,
  };
}
