// A team record that went back in time is a rollback, not tampering (issue 29, DESIGN.md "rollback vs
// tampering"). An asynchronous failover promotes a standby that never received the primary's last
// commits; a restore from last night's backup does the same with a day. Events this desk pulled and
// verified are gone from the record, and the new primary numbers new events from its own sequence,
// which may reuse seqs this desk holds. The hash chain then no longer reaches the head this desk kept,
// exactly as after a superuser's rewrite; what tells the two apart:
//
// - A rollback: the record still holds what this desk verified up to some point P (its hash there is
//   the one this desk verified: the whole prefix is then the same, the chain links it), and after P it
//   holds other events or none: every event this desk verified after P is missing at its seq, or a
//   restoration of it (team.restore_events' mark, migration 15), and what the record holds after P links
//   from P's hash as a chain should.
// - Tampering: an event this desk verified after P is still at its seq with its key, rewritten (not a
//   restoration); or the record after P does not hold together as a chain. The tamper alarm is raised
//   for those exactly as before (chain-check.ts), and nothing is applied.
//
// P is found from the points of the chain this desk kept: its head, every event it witnessed within the
// journal's horizon (witness.ts: to the event), and the marks of every 1,000 seqs (chain.ts) before that.
//
// What the desk does then, in words on its status bar and in Settings, Team ("the team database lost
// events 42–82, probably a failover or a restore from backup; this desk holds them"):
// 1. It keeps showing what it verified (nothing of the new record is applied yet) and puts back what it
//    holds and the record lacks, through team.restore_events, exactly once by event key: its own events
//    (written by its login; its outbox keeps them until then, push.ts) at once, in their old order; the
//    service's signed events of others (their evidence proves them) after a short wait, so the desks
//    whose events they are go first and the record keeps the old order where it can.
// 2. What it holds but cannot prove or send again (another desk's unsigned word, a signed event whose
//    evidence it does not hold) is listed by reference and seq (team_lost_events), never dropped; an
//    entry goes when the event comes back through another witness.
// 3. It re-bases: every reference the record changed after P (and those it lost) is removed from the
//    local copy and applied again from the record, in seq order, through the one apply path, in one
//    SQLite transaction with the new chain head, marks, journal and seq: the copy then equals a replay of
//    the record, row for row. The head it had verified is kept as evidence (team_rollback). Events of
//    this desk still to send (its outbox) survive it and go as before. Then it follows the record again.
//
// A crash or an outage anywhere in this leaves the kept head where it was: the next pull finds the same
// rollback and goes on (putting back is idempotent by key; the re-base is one transaction).
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { keptHead, keptMarks, type ChainHead } from '../../store/sqlite/team/chain-head.js';
import { lastSeq, setLastSeq } from '../../store/sqlite/team/sync-state.js';
import {
  countRestored,
  deferForeignKeys,
  dropLostEventsHeld,
  forgetAfter,
  heldKeysAfter,
  heldEventsByKeys,
  heldEventsOf,
  intentColumnsOf,
  keepLostEvents,
  keepRebasedHead,
  keepRollback,
  keepWitnessed,
  keptRollback,
  localIdOfKey,
  lostEvents,
  removeReferences,
  repointOutbox,
  sentOutboxSince,
  unsentOutboxKeys,
  unsentOutboxOf,
  witnessedBelow,
  witnessedBetween,
  clearChainAlarms,
  type HeldEventRow,
  type OwnOutboxRow,
  type RollbackRow,
  type WitnessRow,
} from '../../store/sqlite/team/rollback.js';
import {
  restoreEvents,
  selectChainPoints,
  selectEventsOfReferences,
  selectNewestPollSeqs,
  selectSeqsOfKeys,
  type ChainPointRow,
  type RestoreRow,
} from '../../store/pg/rollback.js';
import { appendEvent } from '../../collections/ledger.js';
import { collectionIdOf } from '../../store/sqlite/ledger/intent-rows.js';
import { markRefold } from '../../store/sqlite/team/refold.js';
import type { NewEvent } from '../../collections/event-rules.js';
import type { EventKind, EventSource, SignatureState } from '../../collections/model.js';
import type { TeamRollbackState } from '../chain-words.shared.js';
import { ChainBrokenError, checkChain, GENESIS, START } from '../chain.js';
import { translatePgError } from '../errors.js';
import {
  eventFromRaw,
  newestSeq,
  pullPageRaw,
  type ChainedEvent,
  type NewTeamEvent,
  type TeamEvent,
} from '../events.js';
import { SIGNED_SOURCES, type EventVerifier } from '../evidence.js';
import { queryableLogin, toSafeInteger } from '../pool.js';
import { intentEventKey, toTeamEvent } from '../record.js';
import { applyEvents } from './apply.js';
import type { ChainCheck } from './chain-check.js';
import { parseWitnessed, WITNESS_DAYS, witnessRows } from './witness.js';

export type { TeamRollbackState };

export interface RollbackWatchOptions {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** The login this desk signed in as: its own events are the ones it may put back unsigned. */
  login: string | null;
  chain: ChainCheck;
  /** This desk's check of each signed event (team/evidence.ts), as the pull applies them. */
  verify: () => EventVerifier | undefined;
  onChange: (state: TeamRollbackState | null) => void;
  /** The desk re-based: `applied` events were applied again; screens read what they show again. */
  onRebased?: (applied: number) => void;
  /** How long the desk waits before putting back other writers' signed events (default 3 s). */
  othersAfterMs?: number;
  /** How far back (days) the desk looks for its own events the record may have lost (default 14). */
  horizonDays?: number;
  /** The record is looked at at most this often unless asked (default 5 s). */
  probeEveryMs?: number;
  stopped: () => boolean;
}

export interface RollbackWatch {
  state(): TeamRollbackState | null;
  /** Whether the record went back from what this desk verified (asked before a tamper alarm is raised). */
  wentBack(): Promise<boolean>;
  /**
   * Looks at the record (when due, or `force`); when it went back, puts back what this desk holds and
   * re-bases. Resolves with how many events a re-base applied (0 when nothing went back). Throws
   * ChainBrokenError when the record was rewritten rather than taken back.
   */
  settle(force: boolean): Promise<number>;
  /** A pull applied events: entries of the lost list that are back in the copy go. */
  applied(): void;
}

/** What a desk found when the record no longer reaches its head. */
interface WentBack {
  /** The last seq the record still shares with this desk, with its hash and key (none at 0). */
  common: ChainHead & { key: string | null };
  head: ChainHead;
  /** The first seq this desk verified after the common point (common + 1 when it does not know). */
  lostFrom: number;
}

const PAGE = 500;
const KEYS_PAGE = 5_000;
/** Points of the journal compared with the record per question while looking for the common point. */
const POINTS_PAGE = 2_000;

const sleep = (ms: number, stopped: () => boolean) =>
  new Promise<void>((resolve) => {
    const end = Date.now() + ms;
    const tick = () => (stopped() || Date.now() >= end ? resolve() : setTimeout(tick, Math.min(100, end - Date.now())));
    tick();
  });

/**
 * The first of the columns this desk keeps of an event in which the record's event differs from the copy
 * it holds, in words; null when none does (the verdict's columns, kind, signature and note, are this desk's
 * own and not compared).
 */
function differsFromHeld(e: TeamEvent, held: HeldEventRow): string | null {
  const intent = e.source === 'intent';
  const pairs: [string, unknown, unknown][] = [
    ['merchant_reference', e.merchantReference, held.merchant_reference],
    ['internal_reference', e.internalReference, held.internal_reference],
    ['source', e.source, held.source],
    ['status', e.status, held.status],
    ['amount', e.amountMinor, held.amount_minor],
    ['currency', e.currency, held.currency],
    ['actor', e.actor, held.actor],
    ...(intent ? [] : ([['payload', e.payload, held.payload]] as [string, unknown, unknown][])),
  ];
  for (const [name, theirs, mine] of pairs)
    if ((theirs ?? null) !== (mine ?? null))
      return `its ${name} is ${JSON.stringify(theirs)}, this desk holds ${JSON.stringify(mine)}`;
  return null;
}

/** Whether a record event carries team.restore_events' mark (only that function may write it, migration 15). */
export function isRestoration(evidence: string | null): boolean {
  if (!evidence || !evidence.includes('"restored"')) return false;
  try {
    const v = JSON.parse(evidence) as unknown;
    return !!v && typeof v === 'object' && !Array.isArray(v) && 'restored' in v;
  } catch {
    return false;
  }
}

function restoreRow(
  e: NewTeamEvent,
  lost: { seq: number | null; recordedAt: number | null; actor: string | null },
): RestoreRow {
  return {
    event_key: e.eventKey,
    merchant_reference: e.merchantReference,
    internal_reference: e.internalReference ?? null,
    source: e.source,
    kind: e.kind,
    status: e.status ?? null,
    amount_minor: e.amountMinor === null || e.amountMinor === undefined ? null : String(e.amountMinor),
    currency: e.currency ?? null,
    signature: e.signature,
    payload: e.payload ?? null,
    note: e.note ?? null,
    payment_url: e.paymentUrl ?? null,
    status_message: e.statusMessage ?? null,
    occurred_at: new Date(e.occurredAt).toISOString(),
    evidence: e.evidence ?? null,
    lost_seq: lost.seq,
    lost_recorded_at: lost.recordedAt,
    lost_actor: lost.actor,
  };
}

/** A journalled team event as a writer sends it. */
function asNew(e: TeamEvent): NewTeamEvent {
  return {
    eventKey: e.eventKey,
    merchantReference: e.merchantReference,
    internalReference: e.internalReference,
    source: e.source,
    kind: e.kind,
    status: e.status,
    amountMinor: e.amountMinor,
    currency: e.currency,
    signature: e.signature,
    payload: e.payload,
    evidence: e.evidence,
    note: e.note,
    paymentUrl: e.paymentUrl,
    statusMessage: e.statusMessage,
    occurredAt: e.occurredAt,
  };
}

/** A local event row as the ledger took it. */
function localEvent(r: HeldEventRow | OwnOutboxRow, kind: string, extra: Partial<NewEvent> = {}): NewEvent {
  return {
    collectionId: r.collection_id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    source: r.source as EventSource,
    kind: kind as EventKind,
    status: r.status,
    receivedAt: r.received_at,
    signature: r.signature as SignatureState,
    amountMinor: r.amount_minor,
    currency: r.currency,
    payload: r.payload,
    note: r.note,
    actor: r.actor,
    ...extra,
  };
}

/** Something this desk holds that the record may have lost. */
interface Candidate {
  key: string;
  reference: string;
  /** Its seq in the record that lost it, when this desk knows it. */
  seq: number | null;
  /**
   * The event as a witness puts it back; why this desk cannot; or `held`: only its copy has it, read
   * (resolveHeld) once the record is found to lack it.
   */
  putBack:
    | { event: NewTeamEvent; own: boolean; recordedAt: number | null; actor: string | null }
    | { why: string }
    | { held: true };
  order: number;
}

export function startRollbackWatch(o: RollbackWatchOptions): RollbackWatch {
  const { pool, db, logger } = o;
  const login = o.login;
  const horizonMs = (o.horizonDays ?? WITNESS_DAYS) * 86_400_000;
  const probeEveryMs = o.probeEveryMs ?? 5_000;
  let lastProbe = -Infinity;
  let lostListed = lostEvents(db, 0).count;
  let current: TeamRollbackState | null = view();

  function view(): TeamRollbackState | null {
    const r = keptRollback(db);
    if (!r) return null;
    const lost = lostEvents(db, 100);
    return {
      lostFrom: r.lost_from,
      lostTo: r.lost_to,
      commonSeq: r.common_seq,
      foundAt: r.found_at,
      phase: r.phase,
      previousHead: { seq: r.old_head_seq, hash: r.old_head_hash.toString('hex') },
      restored: r.restored,
      present: r.present,
      rebasedSeq: r.rebased_seq,
      rebasedAt: r.rebased_at,
      unrestored: lost.rows.map((x) => ({
        eventKey: x.event_key,
        reference: x.merchant_reference,
        seq: x.seq,
        source: x.source,
        kind: x.kind,
        reason: x.reason,
      })),
      unrestoredCount: lost.count,
    };
  }
  const changed = () => {
    current = view();
    lostListed = current?.unrestoredCount ?? 0;
    o.onChange(current);
  };

  const ask = <T>(doing: string, fn: () => Promise<T>): Promise<T> =>
    fn().catch((e: unknown) => {
      throw translatePgError(e, doing, queryableLogin(pool));
    });

  async function pointsAt(seqs: readonly number[]): Promise<Map<number, ChainPointRow>> {
    const rows = await ask('read the team record at the seqs this desk verified', () => selectChainPoints(pool, seqs));
    return new Map(rows.map((r) => [toSafeInteger(r.seq, 'seq'), r]));
  }

  /**
   * Compares the record with what this desk verified: null when the record still holds the head; the
   * common point when it went back; throws ChainBrokenError when it was rewritten instead.
   */
  async function classify(): Promise<WentBack | null> {
    const head = keptHead(db);
    if (!head || head.seq === 0) return null;
    const atHead = (await pointsAt([head.seq])).get(head.seq);
    if (atHead && atHead.hash.equals(head.hash)) return null;

    // The last point this desk verified that the record still has: its witnessed events newest first,
    // then its marks, then the start of the record.
    let common: (ChainHead & { key: string | null }) | null = null;
    let below = head.seq;
    for (;;) {
      const page = witnessedBelow(db, below, POINTS_PAGE);
      if (!page.length) break;
      const found = await pointsAt(page.map((p) => p.seq));
      const match = page.find((p) => found.get(p.seq)?.hash.equals(p.hash));
      if (match) {
        common = { ...match, key: found.get(match.seq)!.event_key };
        break;
      }
      below = page[page.length - 1]!.seq;
    }
    if (!common) {
      const marks = keptMarks(db, below - 1).reverse();
      for (let i = 0; i < marks.length && !common; i += PAGE) {
        const page = marks.slice(i, i + PAGE);
        const found = await pointsAt(page.map((m) => m.seq));
        const match = page.find((m) => found.get(m.seq)?.hash.equals(m.hash));
        if (match) common = { ...match, key: found.get(match.seq)!.event_key };
      }
    }
    common ??= { ...START, key: null };

    // What this desk verified after the common point: is any of it still at its seq, rewritten?
    const known = witnessedBetween(db, common.seq, head.seq);
    for (let i = 0; i < known.length; i += KEYS_PAGE) {
      const page = known.slice(i, i + KEYS_PAGE);
      const found = await pointsAt(page.map((k) => k.seq));
      for (const k of page) {
        const now = found.get(k.seq);
        if (now && now.event_key === k.event_key && !isRestoration(now.evidence))
          throw new ChainBrokenError(
            k.seq,
            `its hash is not the one this desk verified: the event was rewritten after this desk verified it (the record still holds it at seq ${k.seq}, changed)`,
          );
      }
    }
    if (known.length) return { common, head, lostFrom: known[0]!.seq };
    const held = await heldThrough(common.seq, head.seq);
    if ('rewritten' in held) throw held.rewritten;
    return { common, head, lostFrom: held.sharedUpTo + 1 };
  }

  /**
   * With nothing witnessed between the common point and the head (older than the journal), the record is
   * read from there and held against this desk's own copy, event by event: a rewrite when an event this
   * desk holds comes back with other content, or when the record still reaches the head with every event
   * one this desk holds (the chain's hash differs, so something it does not keep was changed); gone back
   * at the first event that is new to this desk or a restoration, or where the record ends before the head.
   */
  async function heldThrough(
    commonSeq: number,
    headSeq: number,
  ): Promise<{ rewritten: ChainBrokenError } | { sharedUpTo: number }> {
    let shared = commonSeq;
    for (let after = commonSeq; ;) {
      const page = await pullPageRaw(pool, after, 1_000, headSeq);
      for (const e of page.events) {
        const held = isRestoration(e.evidence) ? undefined : heldEventsByKeys(db, [e.eventKey])[0];
        if (!held) return { sharedUpTo: shared };
        const differs = differsFromHeld(e, held);
        if (differs)
          return {
            rewritten: new ChainBrokenError(
              e.seq,
              `its content is not what this desk holds (${differs}): the record was rewritten after this desk verified it, and its later hashes recomputed`,
            ),
          };
        shared = e.seq;
      }
      if (!page.more) break;
      after = page.lastSeq;
    }
    if ((await newestSeq(pool, 'read how far the team record goes')) >= headSeq)
      return {
        rewritten: new ChainBrokenError(
          headSeq,
          `its hash is not the one this desk verified: the record was rewritten after seq ${commonSeq} and at or before seq ${headSeq}, and its later hashes recomputed`,
        ),
      };
    return { sharedUpTo: shared };
  }

  // --- What this desk holds that the record lacks ------------------------------------------------------

  function ownIntent(r: HeldEventRow): NewTeamEvent | null {
    const c = intentColumnsOf(db, r.merchant_reference);
    if (!c) return null;
    const { merchant_reference: _ref, amount_minor, currency, description, ...rest } = c;
    const details = {
      createdAt: rest.created_at,
      customerName: rest.customer_name,
      customerEmail: rest.customer_email,
      chargeCustomer: rest.charge_customer === 1,
      allowFinalStatusChange: rest.allow_final_status_change === 1,
      operator: rest.operator,
      providerCode: rest.provider_code,
      redirectUrl: rest.redirect_url,
      cardBrand: rest.card_brand,
      cardLast4: rest.card_last4,
    };
    return {
      eventKey: intentEventKey(r.merchant_reference),
      merchantReference: r.merchant_reference,
      source: 'intent',
      kind: 'intent',
      status: 'INTENT',
      amountMinor: amount_minor as number,
      currency: currency as string,
      signature: 'not_applicable',
      payload: JSON.stringify({ description, ...details }),
      occurredAt: rest.created_at as number,
    };
  }

  /** The candidates: witnessed after the common point, this desk's own sent or written within the horizon, and every local event after the common one. */
  function candidates(w: WentBack): Map<string, Candidate> {
    const out = new Map<string, Candidate>();
    const unsent = unsentOutboxKeys(db); // the push sends those; they were never in any record
    let order = 0;
    const witnessed = witnessedBetween(db, w.common.seq, w.head.seq);
    const payloads = new Map(
      heldEventsByKeys(
        db,
        witnessed.filter((x) => x.event !== null).map((x) => x.event_key),
      ).map((r) => [r.dedupe_key!, r.payload]),
    );
    for (const x of witnessed) {
      if (unsent.has(x.event_key)) continue;
      const ev = parseWitnessed(x.event, (key) => payloads.get(key));
      out.set(x.event_key, {
        key: x.event_key,
        reference: ev?.merchantReference ?? '',
        seq: x.seq,
        putBack: ev
          ? { event: asNew(ev), own: login !== null && ev.actor === login, recordedAt: ev.recordedAt, actor: ev.actor }
          : { held: true },
        order: order++,
      });
    }
    const since = o.clock.now() - horizonMs;
    for (const r of sentOutboxSince(db, since)) {
      const c = out.get(r.event_key);
      const event = toTeamEvent(
        localEvent(r, r.kind, {
          dedupeKey: r.event_key,
          evidence: r.evidence,
          paymentUrl: r.payment_url,
          statusMessage: r.status_message,
        }),
      );
      const putBack = { event, own: true, recordedAt: null, actor: r.actor };
      if (c) {
        if (!('event' in c.putBack)) c.putBack = putBack;
      } else
        out.set(r.event_key, { key: r.event_key, reference: r.merchant_reference, seq: null, putBack, order: order++ });
    }
    // Every local event after the common one, by key only (a desk far behind reads its rows only for the
    // few the record lacks), and this desk's own of the horizon (written before it applied the common one).
    const fromLocal = (key: string, reference: string) => {
      if (unsent.has(key) || out.has(key)) return;
      out.set(key, { key, reference, seq: null, putBack: { held: true }, order: order++ });
    };
    const after = w.common.key ? (localIdOfKey(db, w.common.key) ?? 0) : 0;
    for (let id = after; ;) {
      const page = heldKeysAfter(db, id, KEYS_PAGE);
      for (const r of page) fromLocal(r.dedupe_key, r.merchant_reference);
      if (page.length < KEYS_PAGE) break;
      id = page[page.length - 1]!.id;
    }
    if (login !== null) for (const r of heldEventsOf(db, login, since)) fromLocal(r.dedupe_key!, r.merchant_reference);
    return out;
  }

  /**
   * How this desk puts back the held events among `list` that only its copy has (no journal, no outbox):
   * its own by its login's word (an intent from its collection's row), the others' not at all.
   */
  function resolveHeld(list: readonly Candidate[]): void {
    const held = list.filter((c) => 'held' in c.putBack);
    const rows = new Map(
      heldEventsByKeys(
        db,
        held.map((c) => c.key),
      ).map((r) => [r.dedupe_key!, r]),
    );
    for (const c of held) {
      const r = rows.get(c.key);
      if (!r) {
        c.putBack = { why: 'this desk no longer holds it' };
        continue;
      }
      c.reference ||= r.merchant_reference;
      if (login !== null && r.actor === login) {
        const event = r.source === 'intent' ? ownIntent(r) : toTeamEvent(localEvent(r, r.kind, { dedupeKey: c.key }));
        c.putBack = event
          ? { event, own: true, recordedAt: null, actor: r.actor }
          : { why: 'this desk no longer holds the intent it wrote' };
      } else
        c.putBack = {
          why: SIGNED_SOURCES.has(r.source)
            ? 'this desk holds it without the service\u2019s signatures (its evidence), so it cannot prove it'
            : `written by ${r.actor ?? 'another desk'}, not signed by the service: only that desk can put it back`,
        };
    }
  }

  /** Of these keys, those the record does not hold (now). */
  async function missingOf(keys: readonly string[]): Promise<Set<string>> {
    const missing = new Set(keys);
    for (let i = 0; i < keys.length; i += KEYS_PAGE) {
      const rows = await ask('look up events in the team record', () =>
        selectSeqsOfKeys(pool, keys.slice(i, i + KEYS_PAGE)),
      );
      for (const r of rows) missing.delete(r.event_key);
    }
    return missing;
  }

  /** Puts these back, in their old order; counts the outcomes; returns the keys refused, with why. */
  async function putBack(list: readonly Candidate[]): Promise<Map<string, string>> {
    const refused = new Map<string, string>();
    const sorted = [...list].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.order - b.order);
    let restored = 0;
    let present = 0;
    for (let i = 0; i < sorted.length; i += PAGE) {
      const rows = sorted.slice(i, i + PAGE).map((c) => {
        const p = c.putBack as Extract<Candidate['putBack'], { event: NewTeamEvent }>;
        return restoreRow(p.event, { seq: c.seq, recordedAt: p.recordedAt, actor: p.actor });
      });
      const out = await ask('put back events the team record lost', () => restoreEvents(pool, rows));
      for (const r of out) {
        if (r.outcome === 'restored') restored++;
        else if (r.outcome === 'present') present++;
        else refused.set(r.event_key, r.reason ?? 'refused by the team database');
      }
    }
    writeTransaction(db, () => countRestored(db, restored, present));
    if (restored || present || refused.size)
      logger.info(
        { restored, present, refused: refused.size },
        'team sync: put back events the team database had lost',
      );
    changed();
    return refused;
  }

  // --- Re-basing on the record as it is now -----------------------------------------------------------

  async function rebase(w: WentBack, lost: readonly Candidate[], found: RollbackRow): Promise<number> {
    const newest = await newestSeq(pool, 'read how far the team record goes');
    // The record after the common point, checked as a chain from the hash this desk verified there.
    const refs = new Set<string>();
    const witnessed: WitnessRow[] = [];
    const marks: ChainHead[] = [];
    let at: ChainHead = { seq: w.common.seq, hash: w.common.seq === 0 ? GENESIS : w.common.hash };
    const horizon = o.clock.now() - horizonMs;
    for (;;) {
      if (o.stopped()) return 0;
      const page = await ask('read the team record', () => pullPageRaw(pool, at.seq, 5_000, newest));
      at = checkChain(at, page.events, (m) => marks.push(m));
      for (const e of page.events) refs.add(e.merchantReference);
      witnessed.push(
        ...witnessRows(
          page.events.filter((e) => e.recordedAt >= horizon),
          login,
        ),
      );
      if (!page.more) break;
    }
    for (const c of lost) if (c.reference) refs.add(c.reference);
    const list = [...refs];
    const history: ChainedEvent[] = [];
    for (let i = 0; i < list.length; i += PAGE) {
      const rows = await ask('read the events of the payments the record changed', () =>
        selectEventsOfReferences(pool, list.slice(i, i + PAGE), at.seq),
      );
      for (const r of rows) history.push(eventFromRaw(r));
    }
    history.sort((a, b) => a.seq - b.seq);
    const polls = await ask('read how far the balances and payment options go', () => selectNewestPollSeqs(pool));
    if (o.stopped()) return 0;

    const now = o.clock.now();
    const verify = o.verify();
    const heldRows = heldEventsByKeys(
      db,
      lost.map((c) => c.key),
    );
    const heldByKey = new Map(heldRows.map((r) => [r.dedupe_key!, r]));
    const applied = writeTransaction(db, () => {
      deferForeignKeys(db);
      const keep = unsentOutboxOf(db, list);
      keepLostEvents(
        db,
        lost.map((c) => {
          const held = heldByKey.get(c.key) ?? null;
          const putBack = c.putBack;
          return {
            event_key: c.key,
            seq: c.seq,
            merchant_reference: c.reference || held?.merchant_reference || '',
            source: held?.source ?? ('event' in putBack ? putBack.event.source : 'unknown'),
            kind: held?.kind ?? ('event' in putBack ? putBack.event.kind : 'unknown'),
            status: held?.status ?? ('event' in putBack ? (putBack.event.status ?? null) : null),
            reason: 'why' in putBack ? putBack.why : 'not back in the team record yet',
            event: JSON.stringify(held ?? ('event' in putBack ? putBack.event : { key: c.key })),
            found_at: found.found_at,
          };
        }),
      );
      removeReferences(db, list);
      const r = applyEvents(db, history, at.seq, now, verify);
      for (const k of keep) {
        const collectionId = collectionIdOf(db, k.merchant_reference) ?? null;
        const again = appendEvent(
          db,
          localEvent(k, k.kind, {
            collectionId,
            dedupeKey: k.event_key,
            paymentUrl: k.payment_url,
            statusMessage: k.status_message,
          }),
        );
        repointOutbox(db, k.outbox_id, again.eventId);
        // Appended as it was; a refused one is no fact, and this desk's events still to send fold in the
        // record's order once it has them: folded again after the pull (sync/refold.ts).
        markRefold(db, k.merchant_reference, now);
      }
      forgetAfter(db, w.common.seq);
      keepRebasedHead(db, at, marks, now);
      keepWitnessed(db, witnessed, now);
      clearChainAlarms(db);
      setLastSeq(db, 'events', at.seq, now);
      for (const stream of ['balance_snapshots', 'payment_option_lists'] as const) {
        const theirs = polls[stream] === null ? 0 : toSafeInteger(polls[stream], 'seq');
        if (theirs < lastSeq(db, stream)) setLastSeq(db, stream, theirs, now);
      }
      keepRollback(db, { ...found, ...keptRollback(db), phase: 'rebased', rebased_at: now, rebased_seq: at.seq });
      return r.applied;
    });
    o.chain.rebased(at);
    if (lost.length)
      logger.warn(
        {
          lost: lost.map((c) => ({
            reference: c.reference,
            seq: c.seq,
            eventKey: c.key,
            reason: 'why' in c.putBack ? c.putBack.why : 'not back in the team record yet',
          })),
        },
        'team sync: events the team database lost that this desk holds and could not put back (kept, and listed in Settings, Team)',
      );
    logger.warn(
      {
        lostFrom: found.lost_from,
        lostTo: found.lost_to,
        previousHead: found.old_head_seq,
        followsFrom: at.seq,
        references: list.length,
        unrestored: lost.length,
      },
      'team sync: re-based on the team record after it went back in time; the head this desk had verified is kept as evidence',
    );
    changed();
    try {
      o.onRebased?.(applied);
    } catch (e) {
      logger.warn({ err: e }, 'team sync: onRebased failed');
    }
    return applied;
  }

  async function handle(w: WentBack): Promise<number> {
    const kept = keptRollback(db);
    const now = o.clock.now();
    // The same rollback found again (after a restart or an outage) keeps what was counted.
    const found: RollbackRow =
      kept && kept.phase === 'restoring' && kept.old_head_seq === w.head.seq && kept.old_head_hash.equals(w.head.hash)
        ? { ...kept, common_seq: w.common.seq, lost_from: w.lostFrom }
        : {
            found_at: now,
            common_seq: w.common.seq,
            lost_from: w.lostFrom,
            lost_to: w.head.seq,
            old_head_seq: w.head.seq,
            old_head_hash: w.head.hash,
            phase: 'restoring',
            restored: 0,
            present: 0,
            rebased_at: null,
            rebased_seq: null,
          };
    writeTransaction(db, () => keepRollback(db, found));
    if (found !== kept) {
      logger.warn(
        { lostFrom: found.lost_from, lostTo: found.lost_to, common: found.common_seq },
        `team sync: the team database lost events ${found.lost_from}–${found.lost_to} (probably a failover or a restore from backup); this desk holds them and puts back what it can`,
      );
    }
    changed();

    const all = candidates(w);
    const missing = await missingOf([...all.keys()]);
    const lacking = [...all.values()].filter((c) => missing.has(c.key));
    resolveHeld(lacking);
    const mine = lacking.filter((c) => 'event' in c.putBack && c.putBack.own);
    const signed = lacking.filter((c) => 'event' in c.putBack && !c.putBack.own);
    const refused = new Map<string, string>();
    if (mine.length) for (const [k, why] of await putBack(mine)) refused.set(k, why);
    if (signed.length) {
      // The writers' own desks go first (their word and the record's old order); then the evidence.
      await sleep(o.othersAfterMs ?? 3_000, o.stopped);
      if (o.stopped()) return 0;
      const still = await missingOf(signed.map((c) => c.key));
      const left = signed.filter((c) => still.has(c.key));
      if (left.length) for (const [k, why] of await putBack(left)) refused.set(k, why);
    }
    if (o.stopped()) return 0;
    const after = await missingOf(lacking.map((c) => c.key));
    const lost = lacking
      .filter((c) => after.has(c.key))
      .map((c) =>
        refused.has(c.key) ? { ...c, putBack: { why: `refused by the team database: ${refused.get(c.key)}` } } : c,
      );
    return rebase(w, lost, keptRollback(db) ?? found);
  }

  let probing: Promise<WentBack | null> | null = null;
  /**
   * A rewrite found, kept for a minute against the same record at the head: a desk that raised the alarm
   * looks at each pull, and finding the common point again walks its whole journal.
   */
  let rewrite: { at: number; head: string; error: ChainBrokenError } | null = null;
  /** One look at a time; a look shared by those asking meanwhile. */
  function look(): Promise<WentBack | null> {
    probing ??= (async () => {
      const head = keptHead(db);
      if (head && rewrite && performance.now() - rewrite.at < 60_000) {
        const now = (await pointsAt([head.seq])).get(head.seq);
        if (`${head.seq}:${now?.hash.toString('hex') ?? '-'}` === rewrite.head) throw rewrite.error;
      }
      try {
        return await classify();
      } catch (e) {
        if (e instanceof ChainBrokenError && head) {
          const now = (await pointsAt([head.seq]).catch(() => new Map<number, ChainPointRow>())).get(head.seq);
          rewrite = { at: performance.now(), head: `${head.seq}:${now?.hash.toString('hex') ?? '-'}`, error: e };
        }
        throw e;
      }
    })().finally(() => {
      probing = null;
    });
    return probing;
  }

  return {
    state: () => current,
    async wentBack() {
      lastProbe = -Infinity; // the pull after the alarm's question looks again, and handles it
      return (await look()) !== null;
    },
    async settle(force) {
      const restoring = current?.phase === 'restoring';
      const now = performance.now();
      if (!force && !restoring && now - lastProbe < probeEveryMs) return 0;
      lastProbe = now;
      const w = await look();
      if (!w) {
        // Found before (a restart while it was being put right), and the record holds this desk's head
        // again (put back in place by its administrator): nothing to re-base on.
        const kept = restoring ? keptRollback(db) : undefined;
        if (kept) {
          const at = o.clock.now();
          writeTransaction(db, () =>
            keepRollback(db, { ...kept, phase: 'rebased', rebased_at: at, rebased_seq: keptHead(db)?.seq ?? 0 }),
          );
          changed();
        }
        return 0;
      }
      return handle(w);
    },
    applied() {
      if (!lostListed) return;
      const gone = writeTransaction(db, () => dropLostEventsHeld(db));
      if (gone) changed();
    },
  };
}
