// What people (and the service, and the day's faults) do on the team day, as fast-check values and as the
// calls a screen makes. Every operation ends in one of its documented outcomes, recorded with what the
// person's screen showed; an operation that found nothing to act on says so and is not counted; anything
// else (an internal error, a sandbox control answering what it never answers) throws and fails the day.
import crypto from 'node:crypto';
import fc from 'fast-check';
import type { CollectionView, CompleteOutcome, FinalStatus } from '../../../sandbox/index.js';
import { setOperatorRole } from '../../../main/operations/operators.js';
import { publishSnapshot } from '../../../main/team/snapshot/publish.js';
import type { TeamRole } from '../../../main/team/operators.js';
import type { IpcResult } from '../../../main/ipc/contract/index.js';
import type { ChargeResponse } from '../../../main/ipc/contract/collections.js';
import { STALE_PENDING_AFTER_MS } from '../../../main/store/sqlite/stale-pending.js';
import { CARDS, cardForm } from '../../collections/harness.js';
import { callbackLine, importArbitrary, REFUSAL_KINDS, roleArbitrary, teamIntents } from '../convergence/ops.js';
import type { WindowPlan } from '../convergence/world.js';
import { databaseAway, DeskKilled, type DayDesk, type DayWorld, type KillPoint } from './world.js';
import { sleep, until } from '../../support/wait.js';

export type Card = keyof typeof CARDS;
const RESOLVERS: ReadonlySet<TeamRole> = new Set(['back_office', 'admin']);
const CHARGERS: ReadonlySet<TeamRole> = new Set(['support', 'admin']);

export type Op =
  | {
      t: 'charge';
      desk: number;
      card: Card;
      amount: number;
      window: 'close' | CompleteOutcome;
      confirm: boolean;
      /** When this desk's person may not take payments: >0, a colleague who may takes the call instead. */
      handOver: number;
    }
  /** Fault (a): the desk is killed (SIGKILL) after initialize was sent and before its answer came. */
  | { t: 'chargeKilled'; desk: number; card: Card; amount: number; killAfterMs: number }
  /** Fault (b): the service answers initialize past the client's time-out; the person sends again. */
  | { t: 'chargeSlow'; desk: number; card: Card; amount: number }
  | { t: 'resend'; desk: number; pick: number; window: 'close' | CompleteOutcome }
  | { t: 'complete'; pick: number; outcome: CompleteOutcome }
  | { t: 'flip'; pick: number; status: FinalStatus }
  | { t: 'resolve'; desk: number; pick: number }
  /** Two desks resolve the same exception at the same moment: one stands, the other is told whose. */
  | { t: 'resolveRace'; pick: number }
  | { t: 'resolveOrphan'; desk: number; pick: number }
  | { t: 'import'; desk: number; pick: number; status: FinalStatus; unknown: boolean; wrongAmount: boolean }
  | { t: 'role'; desk: number; role: TeamRole };

/** Faults that strike on their own time, whatever the desks are doing then. */
export type Fault =
  | { f: 'cut'; desk: number; ms: number }
  | { f: 'stall'; who: number | 'serve'; ms: number }
  | { f: 'pgRestart'; downMs: number }
  /** The asynchronous standby promoted after its replication was cut: the tail committed since is lost. */
  | { f: 'failover'; tailMs: number }
  | { f: 'serveKill' }
  | { f: 'deskKill'; desk: number }
  /** A desk killed (SIGKILL) inside a pull's apply of a batch, or inside a refold (world.ts killInside). */
  | { f: 'killInside'; desk: number; at: KillPoint }
  /**
   * A desk away longer than the stale-pending threshold: closed while it has pending collections, its
   * clock moved past the threshold meanwhile (the team works on for `ms`), then opened again.
   */
  | { f: 'away'; desk: number; ms: number }
  /** Fault (i): a new desk joins in the middle of the day, from the newest snapshot, published just now. */
  | { f: 'join' };

export const FAULT_KINDS = [
  'chargeKilled',
  'chargeSlow',
  'cut',
  'stall desk',
  'stall serve',
  'pgRestart',
  'failover',
  'serveKill',
  'deskKill',
  'killApply',
  'killRefold',
  'away',
  'join',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** How long an armed desk is given to come to a pull's apply (a refold). */
const KILL_INSIDE_WITHIN_MS = 45_000;
/** How far a desk's clock moves on while it is away: past the stale-pending threshold (30 minutes). */
export const AWAY_MINUTES = STALE_PENDING_AFTER_MS.default / 60_000 + 5;

const AMOUNTS = [25_000, 30_000, 45_500, 61_000];

export function opArbitrary(desks: number): fc.Arbitrary<Op> {
  const desk = fc.nat({ max: desks - 1 });
  const pick = fc.nat({ max: 1000 });
  const final = fc.constantFrom<FinalStatus>('COMPLETED', 'FAILED', 'CANCELLED');
  // Mostly cards the service approves; now and then one it declines, one it flips later, one it rejects
  // (a US card without its billing fields).
  const card = fc.constantFrom<Card>(
    'approve',
    'approve',
    'approve',
    'approve',
    'approve',
    'decline',
    'flip',
    'mastercardUS',
  );
  // Few amounts, so the same card and amount come back within the repeat window now and then.
  const amount = fc.constantFrom(...AMOUNTS);
  return fc.oneof(
    {
      weight: 20,
      arbitrary: fc.record({
        t: fc.constant('charge' as const),
        desk,
        card,
        amount,
        window: fc.constantFrom<'close' | CompleteOutcome>(
          'approve',
          'approve',
          'approve',
          'approve',
          'approve',
          'decline',
          'cancel',
          'close',
        ),
        // Mostly yes: the caller meant to pay twice.
        confirm: fc.constantFrom(true, true, true, false),
        handOver: fc.nat({ max: 7 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant('chargeKilled' as const),
        desk,
        card,
        amount,
        killAfterMs: fc.integer({ min: 0, max: 900 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant('resend' as const),
        desk,
        pick,
        window: fc.constantFrom<'close' | CompleteOutcome>('approve', 'decline', 'close'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant('complete' as const),
        pick,
        outcome: fc.constantFrom<CompleteOutcome>('approve', 'decline', 'cancel'),
      }),
    },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('flip' as const), pick, status: final }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('resolve' as const), desk, pick }) },
    { weight: 6, arbitrary: fc.record({ t: fc.constant('resolveRace' as const), pick }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('resolveOrphan' as const), desk, pick }) },
    { weight: 2, arbitrary: importArbitrary(desk, pick, final) },
    { weight: 1, arbitrary: roleArbitrary(desk) },
  );
}

/** Ops that run at the same moment: a few at once, at most one per desk (a person does one thing at a time). */
function groupArbitrary(desks: number): fc.Arbitrary<Op[]> {
  return fc.array(opArbitrary(desks), { minLength: 1, maxLength: 3 }).map((ops) => {
    const busy = new Set<number>();
    return ops.filter((op) => {
      // A race takes two desks: it shares its group with nothing.
      if (op.t === 'resolveRace') {
        if (busy.size > 0) return false;
        busy.add(-1);
        return true;
      }
      if (busy.has(-1)) return false;
      if (!('desk' in op)) return true;
      if (busy.has(op.desk)) return false;
      busy.add(op.desk);
      return true;
    });
  });
}

/**
 * The day's groups, with a charge killed mid-initialize and a charge answered too late each placed at a
 * random moment at least once (every fault kind strikes every day), beside whatever else chance adds.
 */
export function groupsArbitrary(desks: number, groups: number): fc.Arbitrary<Op[][]> {
  const desk = fc.nat({ max: desks - 1 });
  const card = fc.constantFrom<Card>('approve', 'decline');
  const amount = fc.constantFrom(...AMOUNTS);
  const sure = fc.tuple(
    fc.record({
      t: fc.constant('chargeKilled' as const),
      desk,
      card,
      amount,
      killAfterMs: fc.integer({ min: 0, max: 900 }),
    }),
    fc.record({ t: fc.constant('chargeSlow' as const), desk, card, amount }),
  );
  return fc
    .tuple(fc.array(groupArbitrary(desks), { minLength: groups, maxLength: groups }), sure, fc.nat(), fc.nat())
    .map(([list, [killed, slow], a, b]) => {
      const out = [...list];
      out.splice(a % (out.length + 1), 0, [killed]);
      out.splice(b % (out.length + 1), 0, [slow]);
      return out;
    });
}

/**
 * The fault track: one of each kind and `extra` more, in a random order, each after a random pause. The
 * failover strikes once (the promoted server has no standby of its own).
 */
export function faultsArbitrary(
  desks: number,
  extra: number,
  o: { failover: boolean },
): fc.Arbitrary<{ afterMs: number; fault: Fault }[]> {
  const desk = fc.nat({ max: desks - 1 });
  const cut = fc.record({ f: fc.constant('cut' as const), desk, ms: fc.integer({ min: 100, max: 3000 }) });
  const stall = (who: fc.Arbitrary<number | 'serve'>) =>
    fc.record({ f: fc.constant('stall' as const), who, ms: fc.integer({ min: 500, max: 8000 }) });
  const pgRestart = fc.record({ f: fc.constant('pgRestart' as const), downMs: fc.integer({ min: 0, max: 3000 }) });
  const serveKill = fc.constant({ f: 'serveKill' as const });
  const deskKill = fc.record({ f: fc.constant('deskKill' as const), desk });
  const killInside = (at: KillPoint) => fc.record({ f: fc.constant('killInside' as const), desk, at: fc.constant(at) });
  const away = fc.record({ f: fc.constant('away' as const), desk, ms: fc.integer({ min: 1000, max: 8000 }) });
  const any: fc.Arbitrary<Fault> = fc.oneof(
    { weight: 3, arbitrary: cut },
    { weight: 3, arbitrary: stall(fc.oneof(desk, fc.constant('serve' as const))) },
    { weight: 1, arbitrary: pgRestart },
    { weight: 1, arbitrary: serveKill },
    { weight: 2, arbitrary: deskKill },
  );
  const join = fc.constant({ f: 'join' as const });
  const failover = fc.record({ f: fc.constant('failover' as const), tailMs: fc.integer({ min: 500, max: 8000 }) });
  const each = fc.tuple(
    cut,
    stall(desk),
    stall(fc.constant('serve' as const)),
    pgRestart,
    failover,
    serveKill,
    deskKill,
    killInside('apply'),
    killInside('refold'),
    away,
    join,
  );
  return fc
    .tuple(each, fc.array(any, { minLength: extra, maxLength: extra }))
    .map(([sure, more]): [Fault[], Fault[]] => [o.failover ? sure : sure.filter((f) => f.f !== 'failover'), more])
    .chain(([sure, more]) => fc.shuffledSubarray<Fault>([...sure, ...more], { minLength: sure.length + more.length }))
    .chain((list) =>
      fc.tuple(
        ...list.map((fault) => fc.record({ afterMs: fc.integer({ min: 300, max: 6000 }), fault: fc.constant(fault) })),
      ),
    );
}

// ---- what the day records -------------------------------------------------------------------------

/** The word a charge's window showed (PaymentResult.tsx outcomeTitle), from the answer it got. */
export type Shown = 'Approved' | 'Declined' | 'Cancelled' | 'Pending' | 'Unknown' | 'Rejected' | 'Asked';

/** One charge operation as the person lived it: its reference(s), the card, what each answer showed. */
export interface ChargeRecord {
  op: number;
  desk: string;
  operationId: string;
  card: Card;
  amountMinor: number;
  /** The person was asked "Charge this card again?" (and said yes or no). */
  asked: boolean;
  confirmed: boolean;
  shown: { word: Shown; reference: string | null; status: string | null }[];
  killed: boolean;
  /** "Send again with the same reference": follows the reference it was given, makes none. */
  resend: boolean;
}

export interface DayLog {
  lines: string[];
  charges: ChargeRecord[];
  /** Counted outcomes, only of operations that acted on something. */
  counts: Record<string, number>;
  faults: Record<FaultKind, number>;
  /** Each role change, with the time, so a refused outbox row can be explained by the role then. */
  roles: { login: string; role: TeamRole; at: number }[];
  /** Card of every reference a charge created (for a re-send, the person types the same card again). */
  cardOf: Map<string, { card: Card; amountMinor: number }>;
  /** What a desk back from being away showed "Stale pending" (each must end with the service's status). */
  stale: { desk: string; reference: string }[];
  /** Keys of the events the failover's promoted standby never had (each must be put back). */
  lostTail: string[];
}

/** `failover`: whether the day's fault track has the failover (DAY_FAILOVER=1), so that it must strike. */
export function newDayLog(o: { failover: boolean }): DayLog {
  return {
    lines: [],
    charges: [],
    counts: {},
    faults: Object.fromEntries(FAULT_KINDS.filter((k) => o.failover || k !== 'failover').map((k) => [k, 0])) as Record<
      FaultKind,
      number
    >,
    roles: [],
    cardOf: new Map(),
    stale: [],
    lostTail: [],
  };
}

const count = (log: DayLog | undefined, what: string) => log && (log.counts[what] = (log.counts[what] ?? 0) + 1);

function outcome<T>(r: IpcResult<T>, what: string, log: DayLog): T | { refused: string; message: string } {
  if (r.ok) return r.value;
  if (!REFUSAL_KINDS.has(r.error.kind)) throw new Error(`${what} failed: ${JSON.stringify(r.error)}`);
  log.lines.push(`${what}: refused (${r.error.kind}): ${r.error.message}`);
  count(log, `refused ${r.error.kind}`);
  return { refused: r.error.kind, message: r.error.message };
}
const refused = (x: unknown): x is { refused: string; message: string } =>
  typeof x === 'object' && x !== null && 'refused' in x;

/** What the Take payment screen shows for an answer (PaymentResult.tsx outcomeTitle, in one word). */
export function shownWord(r: ChargeResponse): Shown {
  const s = r.collection?.status ?? null;
  if (r.outcome.kind === 'needs_confirmation') return 'Asked';
  if (r.outcome.kind === 'rejected' && !r.collection) return 'Rejected';
  if (s === 'COMPLETED') return 'Approved';
  if (s === 'FAILED') return 'Declined';
  if (s === 'CANCELLED') return 'Cancelled';
  if (s === 'PENDING') return 'Pending';
  if (s === 'REJECTED') return 'Rejected';
  return 'Unknown';
}

const opId = () => crypto.randomBytes(16).toString('hex');

/** The desk's window is dark while its process restarts: a person waits for it to come back. */
async function up(d: DayDesk): Promise<void> {
  await until(`${d.name} is running again`, () => d.alive(), 120_000);
}

/**
 * A call that may meet the desk's death (a kill from the fault track): then it ends as 'killed'. Refused
 * because the team database cannot be reached, the person tries again a little later, twice, as the
 * refusal tells them to (what they read each time is in the day's lines).
 */
async function call<T>(
  d: DayDesk,
  channel: string,
  req: unknown,
  plan?: WindowPlan,
  log?: DayLog,
): Promise<IpcResult<T> | 'killed'> {
  for (let attempt = 0; ; attempt++) {
    await up(d);
    let r: IpcResult<T>;
    try {
      r = await d.invoke<T>(channel, req, plan);
    } catch (e) {
      if (e instanceof DeskKilled) return 'killed';
      throw e;
    }
    if (r.ok || r.error.kind !== 'unavailable' || attempt >= 2 || !RETRIED.has(channel)) return r;
    log?.lines.push(`${d.name} ${channel}: refused (unavailable), tries again: ${r.error.message}`);
    count(log, 'tried again after unavailable');
    await sleep(1500);
  }
}
/** What a person tries again after "the team database cannot be reached" (a card is typed in again). */
const RETRIED = new Set(['payments.charge', 'reconcile.resolve', 'payments.resend']);

/** The service's own record of a reference, or null when it never reached the service. */
export function serviceView(w: DayWorld, ref: string): CollectionView | null {
  try {
    return w.sb.controls.collection(ref);
  } catch {
    return null;
  }
}

const intents = (w: DayWorld) => teamIntents((sql) => w.ownerQuery(sql));

/** A sandbox control's refusal that is part of the day (the page was finished meanwhile), or a defect. */
function controlRefused(e: unknown, what: string, log: DayLog): void {
  if ((e as { code?: unknown }).code === 409) {
    log.lines.push(`${what}: ${(e as Error).message}`);
    return;
  }
  throw new Error(`${what}: the sandbox answered what it never should: ${(e as Error).message}`);
}

async function charge(
  w: DayWorld,
  log: DayLog,
  i: number,
  d: DayDesk,
  o: { card: Card; amount: number; plan: WindowPlan; confirm: boolean },
): Promise<ChargeRecord> {
  const rec = newCharge(i, d, o.card, o.amount);
  log.charges.push(rec);
  const form = { ...cardForm(CARDS[o.card], { amount: String(o.amount) }), operationId: rec.operationId };
  const first = await call<ChargeResponse>(d, 'payments.charge', form, o.plan, log);
  if (first === 'killed') {
    rec.killed = true;
    return rec;
  }
  let r = outcome(first, `${d.name} charge`, log);
  if (refused(r)) return rec;
  rec.shown.push({
    word: shownWord(r),
    reference: r.collection?.merchantReference ?? null,
    status: r.collection?.status ?? null,
  });
  if (r.outcome.kind === 'needs_confirmation') {
    rec.asked = true;
    rec.confirmed = o.confirm;
    const token = r.outcome.token;
    if (!o.confirm) {
      const c = await call<null>(d, 'payments.cancelRepeat', { token });
      if (c !== 'killed') outcome(c, `${d.name} cancel repeat`, log);
      return rec;
    }
    const second = await call<ChargeResponse>(d, 'payments.confirmRepeat', { token, operationId: rec.operationId });
    if (second === 'killed') {
      rec.killed = true;
      return rec;
    }
    r = outcome(second, `${d.name} confirm`, log) as typeof r;
    if (refused(r)) return rec;
    rec.shown.push({
      word: shownWord(r),
      reference: r.collection?.merchantReference ?? null,
      status: r.collection?.status ?? null,
    });
  }
  const ref = r.collection?.merchantReference;
  if (ref) log.cardOf.set(ref, { card: o.card, amountMinor: o.amount });
  return rec;
}

/** A charge operation as the day records it, before its first answer. */
function newCharge(i: number, d: DayDesk, card: Card, amountMinor: number): ChargeRecord {
  return {
    op: i,
    desk: d.name,
    operationId: opId(),
    card,
    amountMinor,
    asked: false,
    confirmed: false,
    shown: [],
    killed: false,
    resend: false,
  };
}

/**
 * A charge's one answer, recorded with what its window showed (a repeat question is answered "no"):
 * the word shown, or null when refused.
 */
async function answered(log: DayLog, d: DayDesk, rec: ChargeRecord, r: IpcResult<ChargeResponse>) {
  const v = outcome(r, `${d.name} charge`, log);
  if (refused(v)) return null;
  rec.shown.push({
    word: shownWord(v),
    reference: v.collection?.merchantReference ?? null,
    status: v.collection?.status ?? null,
  });
  count(log, `charge ${shownWord(v)}`);
  if (v.outcome.kind === 'needs_confirmation') {
    rec.asked = true;
    const c = await call<null>(d, 'payments.cancelRepeat', { token: v.outcome.token });
    if (c !== 'killed') outcome(c, `${d.name} cancel repeat`, log);
  }
  return shownWord(v);
}

/**
 * A charge whose desk is killed (SIGKILL) after initialize was sent and before its answer: the service
 * takes its time to answer the next initialize (whichever desk sends it), so the kill lands in between.
 * True when it did.
 */
async function chargeKilled(
  w: DayWorld,
  log: DayLog,
  i: number,
  d: DayDesk,
  op: { card: Card; amount: number; killAfterMs: number },
): Promise<boolean> {
  w.sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: 1500, times: 1 });
  const rec = newCharge(i, d, op.card, op.amount);
  log.charges.push(rec);
  await up(d);
  const form = { ...cardForm(CARDS[op.card], { amount: String(op.amount) }), operationId: rec.operationId };
  const answer = d.invoke<ChargeResponse>('payments.charge', form, { action: 'close' }).catch((e: unknown) => {
    if (e instanceof DeskKilled) return 'killed' as const;
    throw e;
  });
  // The intent is recorded (the window says "sending"), and initialize goes at once after it.
  let sent = await Promise.race([
    until('the charge is on its way', () => (d.progress.get(rec.operationId) ?? []).length > 0, 30_000).then(
      () => true,
    ),
    answer.then(() => false),
  ]);
  if (sent) {
    await sleep(op.killAfterMs);
    if (d.alive()) {
      await d.kill();
      log.faults.chargeKilled++;
    } else sent = false;
  }
  const r = await answer;
  const ref = (d.progress.get(rec.operationId) ?? [])[0]?.reference;
  if (ref) log.cardOf.set(ref, { card: op.card, amountMinor: op.amount });
  if (r === 'killed') {
    rec.killed = true;
    log.lines.push(`#${i} ${d.name} killed ${op.killAfterMs} ms into its charge of ${ref ?? '(no reference yet)'}`);
  } else
    log.lines.push(`#${i} ${d.name} charge answered before the kill: ${(await answered(log, d, rec, r)) ?? 'refused'}`);
  await d.start();
  return sent && r === 'killed';
}

/**
 * A payment taken at `d` with its line to PostgreSQL silent from the moment its intent is recorded until
 * serve has recorded the service's callback: the desk's own answer and redirect reach the record after a
 * callback it pulls first, so it folds the reference again (a refold), and every desk applies it all.
 */
async function chargeWithLineSilent(w: DayWorld, log: DayLog, d: DayDesk): Promise<void> {
  const rec = newCharge(0, d, 'approve', AMOUNTS[0]! + 13 * (log.charges.length + 1));
  log.charges.push(rec);
  await up(d);
  const form = { ...cardForm(CARDS.approve, { amount: String(rec.amountMinor) }), operationId: rec.operationId };
  const answer = d
    .invoke<ChargeResponse>('payments.charge', form, { action: 'complete', outcome: 'approve' })
    .catch((e: unknown) => (e instanceof DeskKilled ? ('killed' as const) : Promise.reject(e)));
  const sending = await Promise.race([
    until('the charge is on its way', () => (d.progress.get(rec.operationId) ?? []).length > 0, 30_000).then(
      () => true,
    ),
    answer.then(() => false),
  ]);
  if (sending) d.line.stall();
  try {
    const r = await answer;
    const ref = (d.progress.get(rec.operationId) ?? [])[0]?.reference;
    if (ref) log.cardOf.set(ref, { card: 'approve', amountMinor: rec.amountMinor });
    if (r === 'killed') rec.killed = true;
    else await answered(log, d, rec, r);
    log.lines.push(
      `fault: ${d.name} takes a payment with its line silent: ${rec.shown.at(-1)?.word ?? 'no answer'} ${ref ?? ''}`,
    );
    if (sending && ref)
      await until(
        'serve has the callback in the record',
        async () =>
          (
            await w.ownerQuery(
              "SELECT 1 FROM team.events WHERE merchant_reference = $1 AND source = 'callback' LIMIT 1",
              [ref],
            )
          ).rows.length > 0,
        60_000,
      ).catch(() => undefined);
  } finally {
    await d.line.restore();
  }
}

/** The reference(s) an operation's own progress named (what its window followed). */
export function referencesOf(d: DayDesk, rec: ChargeRecord): string[] {
  return [...new Set((d.progress.get(rec.operationId) ?? []).map((p) => p.reference))];
}

export async function runOp(w: DayWorld, op: Op, i: number, log: DayLog): Promise<void> {
  const desk = (n: number): DayDesk => w.desks[n % w.desks.length]!;
  /** This desk when its person may take payments, else a colleague who may (the team keeps an admin). */
  const charger = (d: DayDesk): DayDesk | undefined =>
    CHARGERS.has(d.role) ? d : w.desks.find((x) => CHARGERS.has(x.role));
  const line = (s: string) => log.lines.push(`#${i} ${s}`);
  switch (op.t) {
    case 'charge': {
      const mine = desk(op.desk);
      const colleague = w.desks.find((x) => CHARGERS.has(x.role));
      const d = !CHARGERS.has(mine.role) && op.handOver > 0 && colleague ? colleague : mine;
      const plan: WindowPlan = op.window === 'close' ? { action: 'close' } : { action: 'complete', outcome: op.window };
      const rec = await charge(w, log, i, d, { card: op.card, amount: op.amount, plan, confirm: op.confirm });
      const last = rec.shown.at(-1);
      line(
        `${d.name} charge ${op.card} ${op.amount}: ${rec.killed ? 'killed' : (last?.word ?? 'refused')} ${last?.reference ?? ''}`,
      );
      if (last) count(log, `charge ${last.word}`);
      return;
    }
    case 'chargeKilled': {
      // Up to three tries at landing the kill between the request and its answer (a repeat question, a
      // refusal or another fault's kill can come first); each try is a charge of its own.
      for (let attempt = 0; attempt < 3; attempt++) {
        const d = charger(desk(op.desk));
        if (!d) return void line('nobody may charge: nothing to kill');
        if (await chargeKilled(w, log, i, d, { ...op, amount: op.amount + 7 * i + attempt })) return;
      }
      return;
    }
    case 'chargeSlow': {
      const d = charger(desk(op.desk));
      if (!d) return void line('nobody may charge: nothing slow');
      // Past the client's 20 s: the charge's outcome is unknown, and the person sends it again.
      w.sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: 21_000, times: 1 });
      log.faults.chargeSlow++;
      const rec = await charge(w, log, i, d, {
        card: op.card,
        amount: op.amount,
        plan: { action: 'complete', outcome: 'approve' },
        confirm: true,
      });
      const last = rec.shown.at(-1);
      line(`${d.name} slow charge: ${rec.killed ? 'killed' : (last?.word ?? 'refused')} ${last?.reference ?? ''}`);
      if (last) count(log, `charge ${last.word}`);
      if (last?.word === 'Unknown' && last.reference)
        await resend(w, log, i, d, last.reference, { action: 'complete', outcome: 'approve' });
      return;
    }
    case 'resend': {
      const d = desk(op.desk);
      await up(d);
      const unknown = await d
        .read<{ merchant_reference: string }>(
          "SELECT merchant_reference FROM collections WHERE status IN ('UNKNOWN', 'INTENT') ORDER BY merchant_reference",
        )
        .catch((e: unknown) => (e instanceof DeskKilled ? [] : Promise.reject(e)));
      const known = unknown.filter((u) => log.cardOf.has(u.merchant_reference));
      const row = known[op.pick % Math.max(1, known.length)];
      if (!row) return void line(`${d.name} resend: nothing unknown`);
      const plan: WindowPlan = op.window === 'close' ? { action: 'close' } : { action: 'complete', outcome: op.window };
      await resend(w, log, i, d, row.merchant_reference, plan);
      return;
    }
    case 'complete':
    case 'flip': {
      const refs = (await intents(w)).map((x) => x.ref);
      const inService = refs.flatMap((ref) => serviceView(w, ref) ?? []);
      if (op.t === 'complete') {
        const pending = inService.filter((c) => c.status === 'PENDING');
        const c = pending[op.pick % Math.max(1, pending.length)];
        if (!c) return void line('complete: nothing pending at the service');
        try {
          await w.sb.controls.complete(c.merchant_reference, op.outcome);
          count(log, 'customer paid later');
          line(`customer ${op.outcome}s ${c.merchant_reference} on the page`);
        } catch (e) {
          controlRefused(e, `complete ${c.merchant_reference}`, log);
        }
      } else {
        // Back to a final status the service held before too: that callback is byte for byte the earlier one,
        // stored again as "said again" and flagged (docs/team.md, "The service said it again").
        const done = inService.filter(
          (c) => c.status !== 'PENDING' && c.status !== op.status && c.allow_final_status_change,
        );
        const c = done[op.pick % Math.max(1, done.length)];
        if (!c) return void line('flip: nothing final to change');
        try {
          await w.sb.controls.flip(c.merchant_reference, op.status);
          count(log, 'final status changed');
          line(`service changes ${c.merchant_reference} ${c.status} -> ${op.status}`);
        } catch (e) {
          controlRefused(e, `flip ${c.merchant_reference}`, log);
        }
      }
      return;
    }
    case 'resolve': {
      const mine = desk(op.desk);
      const d = RESOLVERS.has(mine.role) ? mine : (w.desks.find((x) => RESOLVERS.has(x.role)) ?? mine);
      const ex = await exceptions(d, log);
      const row = ex[op.pick % Math.max(1, ex.length)];
      if (!row) return void line(`${d.name} resolve: no open exception`);
      await resolveOne(d, row.merchantReference, log, i);
      return;
    }
    case 'resolveRace': {
      const two = w.desks.filter((d) => RESOLVERS.has(d.role)).slice(0, 2);
      if (two.length < 2) return void line('resolve race: fewer than two desks may resolve');
      // An exception both desks show open now (each has its own copy).
      const lists = await Promise.all(two.map((d) => exceptions(d, log)));
      const both = lists[0]!.filter((a) => lists[1]!.some((b) => b.merchantReference === a.merchantReference));
      const row = both[op.pick % Math.max(1, both.length)];
      if (!row) return void line('resolve race: no exception open on both desks');
      await Promise.all(two.map((d) => resolveOne(d, row.merchantReference, log, i)));
      return;
    }
    case 'resolveOrphan': {
      const d = desk(op.desk);
      const list = await call<{
        rows: { eventId: number; merchantReference: string; resolvedByEventId: number | null }[];
      }>(d, 'reconcile.orphans', { limit: 1000 });
      if (list === 'killed') return;
      const v = outcome(list, `${d.name} orphans`, log);
      if (refused(v)) return;
      const open = v.rows.filter((o) => o.resolvedByEventId === null);
      const row = open[op.pick % Math.max(1, open.length)];
      if (!row) return void line(`${d.name} resolve orphan: none open`);
      const r = await call(d, 'reconcile.resolve', {
        orphanEventId: row.eventId,
        note: `orphan checked by ${d.login}`,
      });
      if (r === 'killed') return;
      const x = outcome(r, `${d.name} resolve orphan ${row.merchantReference}`, log);
      if (!refused(x)) count(log, 'orphan resolved');
      line(`${d.name} resolve orphan ${row.merchantReference}: ${refused(x) ? x.refused : 'resolved'}`);
      return;
    }
    case 'import': {
      // A callback file saved at the merchant's server: what the service really said (its status now), or
      // a callback for a reference nobody here knows (an orphan), or one whose amount was altered.
      const d = desk(op.desk);
      const refs = await intents(w);
      const known = refs[op.pick % Math.max(1, refs.length)];
      let l: string;
      let what: string;
      if (op.unknown || !known) {
        l = callbackLine(w.sb.signingKey, `MD-UNKNOWN-${op.pick}`, op.status, 1000, 'UGX');
        what = 'an unknown reference';
      } else {
        const c = serviceView(w, known.ref);
        if (!c || c.status === 'PENDING')
          return void line(`${d.name} import: nothing final at the service for ${known.ref}`);
        l = callbackLine(
          w.sb.signingKey,
          known.ref,
          c.status,
          known.amount + (op.wrongAmount ? 100 : 0),
          known.currency,
        );
        what = `${known.ref} (${c.status}${op.wrongAmount ? ', amount altered' : ''})`;
      }
      const r = await call(d, 'callbacks.import', { content: l + '\n' });
      if (r === 'killed') return;
      const x = outcome(r, `${d.name} import`, log);
      if (!refused(x)) count(log, 'import');
      line(`${d.name} import for ${what}: ${refused(x) ? x.refused : 'done'}`);
      return;
    }
    case 'role': {
      const d = desk(op.desk);
      // The admin keeps the team staffed: two who may resolve (a race needs two) and one who may charge.
      const after = w.desks.map((x) => (x === d ? op.role : x.role));
      if (after.filter((r) => RESOLVERS.has(r)).length < 2 || !after.some((r) => CHARGERS.has(r)))
        return void line(`${d.login} stays ${d.role}: the team would be left without enough people for the day`);
      try {
        await until(
          'the database is back for the admin',
          async () => {
            try {
              await setOperatorRole({ pool: w.owner }, d.login, op.role);
              return true;
            } catch (e) {
              if (databaseAway(e)) return false;
              throw e;
            }
          },
          90_000,
        );
        d.role = op.role;
        log.roles.push({ login: d.login, role: op.role, at: Date.now() });
        count(log, 'role changed');
        line(`${d.login} is now ${op.role}`);
      } catch (e) {
        // The database keeps an enabled admin: moving the last one is refused, as an admin would be told.
        // The database away (a fault at that moment) is what an admin would be told too.
        if (!/last enabled admin/.test((e as Error).message)) throw e;
        line(`${d.login} stays: ${(e as Error).message}`);
      }
      return;
    }
  }
}

async function exceptions(d: DayDesk, log: DayLog): Promise<{ collectionId: number; merchantReference: string }[]> {
  const r = await call<{ rows: { collectionId: number; merchantReference: string }[] }>(d, 'reconcile.exceptions', {
    limit: 1000,
  });
  if (r === 'killed') return [];
  const v = outcome(r, `${d.name} exceptions`, log);
  return refused(v) ? [] : v.rows;
}

/** One person resolving the exception of `ref` as their own copy shows it now. */
async function resolveOne(d: DayDesk, ref: string, log: DayLog, i: number): Promise<void> {
  const ex = await exceptions(d, log);
  const row = ex.find((e) => e.merchantReference === ref);
  if (!row) return void log.lines.push(`#${i} ${d.name} resolve ${ref}: no longer open here`);
  const r = await call(
    d,
    'reconcile.resolve',
    { collectionId: row.collectionId, note: `checked by ${d.login}` },
    undefined,
    log,
  );
  if (r === 'killed') return;
  const x = outcome(r, `${d.name} resolve ${ref}`, log);
  if (!refused(x)) count(log, 'resolution accepted');
  else if (x.refused === 'conflict' && /already resolved/.test(x.message) && !x.message.startsWith(d.login))
    count(log, 'resolution refused: another desk first');
  log.lines.push(`#${i} ${d.name} resolve ${ref}: ${refused(x) ? `${x.refused}: ${x.message}` : 'resolved'}`);
}

/** "Send again with the same reference": the person types the same card again. */
async function resend(w: DayWorld, log: DayLog, i: number, d: DayDesk, ref: string, plan: WindowPlan): Promise<void> {
  const card = log.cardOf.get(ref)!;
  const rec: ChargeRecord = {
    op: i,
    desk: d.name,
    operationId: opId(),
    card: card.card,
    amountMinor: card.amountMinor,
    asked: false,
    confirmed: false,
    shown: [],
    killed: false,
    resend: true,
  };
  log.charges.push(rec);
  const form = cardForm(CARDS[card.card]);
  const r = await call<ChargeResponse>(
    d,
    'payments.resend',
    { reference: ref, card: form.card, operationId: rec.operationId },
    plan,
  );
  if (r === 'killed') {
    rec.killed = true;
    return;
  }
  const v = outcome(r, `${d.name} resend ${ref}`, log);
  if (refused(v)) return void log.lines.push(`#${i} ${d.name} resend ${ref}: ${v.refused}`);
  rec.shown.push({
    word: shownWord(v),
    reference: v.collection?.merchantReference ?? ref,
    status: v.collection?.status ?? null,
  });
  count(log, `resend ${shownWord(v)}`);
  log.lines.push(`#${i} ${d.name} resend ${ref}: ${shownWord(v)}`);
}

export async function runFault(w: DayWorld, fault: Fault, log: DayLog): Promise<void> {
  const line = (s: string) => log.lines.push(`fault: ${s}`);
  switch (fault.f) {
    case 'cut': {
      const d = w.desks[fault.desk % w.desks.length]!;
      line(`${d.name}'s line to PostgreSQL cut for ${fault.ms} ms`);
      log.faults.cut++;
      await d.line.cut();
      await sleep(fault.ms);
      await d.line.restore();
      return;
    }
    case 'stall': {
      const l = fault.who === 'serve' ? w.serve.line : w.desks[fault.who % w.desks.length]!.line;
      const name = fault.who === 'serve' ? 'serve' : w.desks[fault.who % w.desks.length]!.name;
      line(`${name}'s line to PostgreSQL silent for ${fault.ms} ms`);
      log.faults[fault.who === 'serve' ? 'stall serve' : 'stall desk']++;
      l.stall();
      await sleep(fault.ms);
      await l.restore();
      return;
    }
    case 'pgRestart': {
      line(`PostgreSQL stopped (-m immediate), started ${fault.downMs} ms later`);
      log.faults.pgRestart++;
      await w.restartPostgres(fault.downMs);
      return;
    }
    case 'failover': {
      log.faults.failover++;
      const { kept, head, lost } = await w.failover(fault.tailMs);
      log.lostTail.push(...lost);
      line(
        `replication cut, ${fault.tailMs} ms later PostgreSQL stopped (-m immediate) and the standby promoted: ` +
          (head > kept ? `events ${kept + 1}–${head} lost` : `nothing lost (the record stayed at ${kept})`),
      );
      // An admin's role change in the lost tail is gone too: the login holds its role of before again.
      const roles = await w.ownerQuery<{ login: string; role: TeamRole }>('SELECT login, role FROM team.operators');
      for (const d of w.desks) {
        const now = roles.rows.find((r) => r.login === d.login)?.role;
        if (!now || now === d.role) continue;
        line(`the failover lost ${d.login}'s change to ${d.role}: ${now} again`);
        d.role = now;
        log.roles.push({ login: d.login, role: now, at: Date.now() });
      }
      return;
    }
    case 'serveKill': {
      // During a group commit: as soon as the service has a callback on its way to serve.
      await until('a callback is on its way', () => w.sb.controls.state().pending_callbacks > 0, 5_000).catch(
        () => undefined,
      );
      line(`serve killed (SIGKILL) with ${w.sb.controls.state().pending_callbacks} callbacks on their way`);
      log.faults.serveKill++;
      await w.serve.kill();
      await sleep(300);
      await w.serve.start();
      return;
    }
    case 'join': {
      // Published as the team's back office does it nightly, with the keys a desk checks signatures with.
      let info: Awaited<ReturnType<typeof publishSnapshot>> | null = null;
      await until(
        'the snapshot is published',
        async () => {
          try {
            info = await publishSnapshot({
              pool: w.owner,
              now: () => Date.now(),
              scratchDir: w.root,
              keys: { servicePublicKey: w.sb.servicePublicKeyPem, signingKey: w.sb.signingKey },
            });
            return true;
          } catch (e) {
            if (databaseAway(e)) return false;
            throw e;
          }
        },
        120_000,
      );
      const d = await w.openDesk(`desk${w.desks.length}`, 'back_office');
      w.desks.push(d);
      log.faults.join++;
      line(`${d.name} joined the team from the snapshot up to seq ${info!.uptoSeq}`);
      return;
    }
    case 'killInside': {
      // A refold is of a desk's own events the record placed otherwise: a desk that takes payments.
      const drawn = w.desks[fault.desk % w.desks.length]!;
      const payer = CHARGERS.has(drawn.role) ? drawn : w.desks.find((x) => CHARGERS.has(x.role));
      const d = fault.at === 'refold' && payer ? payer : drawn;
      await up(d);
      const dying = d.killInside(fault.at, KILL_INSIDE_WITHIN_MS);
      // Whatever the day's work brings first; if nothing within a few seconds (the work done, or none of
      // this desk's own), a payment whose desk folds it again for sure, which every desk applies.
      if (payer && !(await Promise.race([dying.then(() => true), sleep(5000).then(() => false)])))
        await chargeWithLineSilent(w, log, payer);
      const where = await dying;
      await d.start();
      if (!where) return void line(`${d.name} came to no ${fault.at} in time (or died of another's kill)`);
      line(`${d.name} killed (SIGKILL) inside ${where}`);
      log.faults[fault.at === 'apply' ? 'killApply' : 'killRefold']++;
      return;
    }
    case 'away': {
      // A desk whose copy has collections waiting for their outcome (its person's own or another's).
      let d: DayDesk | undefined;
      let pending: string[] = [];
      await until(
        'a desk has a collection waiting for its outcome',
        async () => {
          for (let k = 0; k < w.desks.length && !d; k++) {
            const x = w.desks[(fault.desk + k) % w.desks.length]!;
            await up(x);
            const rows = await x
              .read<{ r: string }>("SELECT merchant_reference AS r FROM collections WHERE status = 'PENDING'")
              .catch((e: unknown) => (e instanceof DeskKilled ? [] : Promise.reject(e)));
            if (rows.length) [d, pending] = [x, rows.map((r) => r.r)];
          }
          return d !== undefined;
        },
        60_000,
      ).catch(() => undefined);
      const back = d as DayDesk | undefined;
      if (!back) return void line('away: no desk has a collection pending');
      // The person shuts the laptop; the team works on; the laptop's clock is past the threshold when
      // it opens again (a fake clock: its offset moves on).
      line(
        `${back.name} closed with ${pending.length} collections pending (${pending.join(', ')}), away ${fault.ms} ms and ${AWAY_MINUTES} minutes by its clock`,
      );
      log.faults.away++;
      await back.close();
      await sleep(fault.ms);
      back.clockOffsetMs += AWAY_MINUTES * 60_000;
      await back.start();
      // What its person sees first: the exceptions queue, its "Stale pending" among them.
      const r = await call<{ rows: { merchantReference: string; status: string }[] }>(back, 'reconcile.exceptions', {
        kind: 'stale_pending',
        limit: 1000,
      });
      if (r === 'killed') return void line(`${back.name} is back, and killed before its person looked`);
      const v = outcome(r, `${back.name} exceptions after being away`, log);
      if (refused(v)) return;
      const stale = v.rows.map((x) => x.merchantReference);
      log.stale.push(...stale.map((reference) => ({ desk: back.name, reference })));
      line(`${back.name} is back: ${stale.length} stale pending shown (${stale.join(', ')})`);
      return;
    }
    case 'deskKill': {
      const d = w.desks[fault.desk % w.desks.length]!;
      if (!d.alive()) return;
      line(`${d.name} killed (SIGKILL)`);
      log.faults.deskKill++;
      await d.kill();
      await sleep(200);
      await d.start();
      return;
    }
  }
}
