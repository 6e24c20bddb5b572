// The operations of a team's day, as fast-check values and as what a person (or the service) does: each
// runs through the desk's IPC handlers (the same calls its screens make), the sandbox's controls (the
// customer paying, the service changing a final status) or the database's operator functions (an admin
// re-roling someone). A refusal a person would read (forbidden, offline, already resolved, nothing to
// resolve) is part of the day; anything else (an internal error) fails the run.
import crypto from 'node:crypto';
import fc from 'fast-check';
import type { CompleteOutcome, FinalStatus } from '../../../sandbox/index.js';
import { setOperatorRole } from '../../../main/operations/operators.js';
import type { TeamRole } from '../../../main/team/operators.js';
import type { IpcResult } from '../../../main/ipc/contract/index.js';
import { CARDS, cardForm } from '../../collections/harness.js';
import type { Desk, World } from './world.js';

const OUTCOMES: CompleteOutcome[] = ['approve', 'decline', 'cancel'];
const DESK_ROLES: TeamRole[] = ['support', 'back_office', 'admin', 'finance'];

export type Op =
  | {
      t: 'charge';
      desk: number;
      card: keyof typeof CARDS;
      amount: number;
      window: 'close' | CompleteOutcome;
      confirm: boolean;
    }
  | { t: 'complete'; pick: number; outcome: CompleteOutcome }
  | { t: 'flip'; pick: number; status: FinalStatus }
  | { t: 'resolve'; desk: number; pick: number }
  | { t: 'resolveOrphan'; desk: number; pick: number }
  | { t: 'import'; desk: number; pick: number; status: FinalStatus; unknown: boolean; wrongAmount: boolean }
  | { t: 'role'; desk: number; role: TeamRole }
  | { t: 'outage'; desk: number; ms: number }
  | { t: 'restart'; desk: number };

/** A callback file imported at a desk: for a payment of the team's (its amount, or not) or an unknown reference. */
export const importArbitrary = (
  desk: fc.Arbitrary<number>,
  pick: fc.Arbitrary<number>,
  status: fc.Arbitrary<FinalStatus>,
) =>
  fc.record({
    t: fc.constant('import' as const),
    desk,
    pick,
    status,
    unknown: fc.boolean(),
    wrongAmount: fc.boolean(),
  });

/** An admin moves a desk's operator to another role. */
export const roleArbitrary = (desk: fc.Arbitrary<number>) =>
  fc.record({ t: fc.constant('role' as const), desk, role: fc.constantFrom(...DESK_ROLES) });

export function opArbitrary(desks: number): fc.Arbitrary<Op> {
  const desk = fc.nat({ max: desks - 1 });
  const pick = fc.nat({ max: 1000 });
  const final = fc.constantFrom<FinalStatus>('COMPLETED', 'FAILED', 'CANCELLED');
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        t: fc.constant('charge' as const),
        desk,
        card: fc.constantFrom<keyof typeof CARDS>('approve', 'mastercardUS', 'decline'),
        // Few amounts, so the same card and amount come back within the repeat window now and then.
        amount: fc.constantFrom(25_000, 30_000, 45_500, 61_000),
        window: fc.constantFrom<'close' | CompleteOutcome>('close', 'approve', 'decline', 'cancel'),
        confirm: fc.boolean(),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ t: fc.constant('complete' as const), pick, outcome: fc.constantFrom(...OUTCOMES) }),
    },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('flip' as const), pick, status: final }) },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('resolve' as const), desk, pick }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('resolveOrphan' as const), desk, pick }) },
    { weight: 2, arbitrary: importArbitrary(desk, pick, final) },
    { weight: 1, arbitrary: roleArbitrary(desk) },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant('outage' as const), desk, ms: fc.integer({ min: 50, max: 1500 }) }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('restart' as const), desk }) },
  );
}

/** Ops that run at the same moment: a few at once, at most one per desk (a person does one thing at a time). */
export function groupsArbitrary(desks: number, groups: number): fc.Arbitrary<Op[][]> {
  return fc.array(
    fc.array(opArbitrary(desks), { minLength: 1, maxLength: 3 }).map((ops) => {
      const seen = new Set<number>();
      return ops.filter((op) => !('desk' in op) || (!seen.has(op.desk) && (seen.add(op.desk), true)));
    }),
    { minLength: groups, maxLength: groups },
  );
}

/** Refusals a person reads and goes on from; anything else is a defect (the team day's rule too). */
export const REFUSAL_KINDS: ReadonlySet<string> = new Set([
  'forbidden',
  'unavailable',
  'conflict',
  'not_found',
  'validation',
  'expired',
  'rejected',
]);

function expectedRefusal<T>(r: IpcResult<T>, what: string, log: string[]): T | null {
  if (r.ok) return r.value;
  if (REFUSAL_KINDS.has(r.error.kind)) {
    log.push(`${what}: refused (${r.error.kind}): ${r.error.message}`);
    return null;
  }
  throw new Error(`${what} failed: ${JSON.stringify(r.error)}`);
}

type IntentRow = { merchant_reference: string; amount_minor: string; currency: string };

/** The team's payments in the order they were made (what an op picks one of), read by the owner's `query`. */
export async function teamIntents(
  query: (sql: string) => Promise<{ rows: IntentRow[] }>,
): Promise<{ ref: string; amount: number; currency: string }[]> {
  const r = await query(
    'SELECT merchant_reference, amount_minor, currency FROM team.intents ORDER BY created_at, merchant_reference',
  );
  return r.rows.map((x) => ({ ref: x.merchant_reference, amount: Number(x.amount_minor), currency: x.currency }));
}
const references = (w: World) => teamIntents((sql) => w.team.owner.query<IntentRow>(sql));

/** A signed callback as the service sends it, as one line of an import file (signed with `signingKey`). */
export function callbackLine(
  signingKey: string,
  ref: string,
  status: FinalStatus,
  amountMinor: number,
  currency: string,
): string {
  const event = {
    COMPLETED: 'transaction.completed',
    FAILED: 'transaction.failed',
    CANCELLED: 'transaction.cancelled',
  }[status];
  const exponent = currency === 'UGX' ? 0 : 2;
  const amount = exponent ? (amountMinor / 100).toFixed(2) : String(amountMinor);
  const body = {
    event,
    payload: {
      id: 1,
      merchant_reference: ref,
      internal_reference: `INT-${ref}`,
      transaction_type: 'Collection',
      request_currency: currency,
      request_amount: amount,
      transaction_currency: currency,
      transaction_amount: amount,
      transaction_charge: '0',
      total_credit: amount,
      charge_customer: false,
      provider_code: `CARD_${currency}`,
      customer_name: 'Amina N',
      transaction_status: status,
      status_message: status === 'COMPLETED' ? 'Approved' : 'Declined',
    },
  };
  const signed = [event, ref, `INT-${ref}`, 'Collection', status].join(':');
  const t = Math.floor(Date.now() / 1000);
  const s = crypto.createHmac('sha256', signingKey).update(signed).digest('hex');
  return JSON.stringify({ headers: { 'hmac-signature': `t=${t},s=${s}` }, body });
}

export async function runOp(w: World, op: Op, log: string[]): Promise<void> {
  const desk = (i: number): Desk => w.desks[i % w.desks.length]!;
  switch (op.t) {
    case 'charge': {
      const d = desk(op.desk);
      d.plan = op.window === 'close' ? { action: 'close' } : { action: 'complete', outcome: op.window };
      const r = expectedRefusal(
        await d.invoke('payments.charge', cardForm(CARDS[op.card], { amount: String(op.amount) })),
        `${d.name} charge`,
        log,
      );
      if (r?.outcome.kind === 'needs_confirmation') {
        const token = r.outcome.token;
        if (op.confirm) expectedRefusal(await d.invoke('payments.confirmRepeat', { token }), `${d.name} confirm`, log);
        else expectedRefusal(await d.invoke('payments.cancelRepeat', { token }), `${d.name} cancel repeat`, log);
      }
      log.push(`${d.name} charge: ${r ? r.outcome.kind : 'refused'}`);
      return;
    }
    case 'complete':
    case 'flip': {
      // The sandbox's own view of the team's payments (an intent whose initialize never reached it has none).
      const inSandbox = (await references(w)).flatMap(({ ref }) => {
        try {
          return [w.sb.controls.collection(ref)];
        } catch {
          return [];
        }
      });
      if (op.t === 'complete') {
        const pending = inSandbox.filter((c) => c.status === 'PENDING');
        const c = pending[op.pick % Math.max(1, pending.length)];
        if (c)
          await w.sb.controls
            .complete(c.merchant_reference, op.outcome)
            .catch((e: Error) => log.push(`complete: ${e.message}`));
      } else {
        const done = inSandbox.filter((c) => c.status !== 'PENDING' && c.status !== op.status);
        const c = done[op.pick % Math.max(1, done.length)];
        if (c)
          await w.sb.controls.flip(c.merchant_reference, op.status).catch((e: Error) => log.push(`flip: ${e.message}`));
      }
      return;
    }
    case 'resolve': {
      const d = desk(op.desk);
      const list = expectedRefusal(
        await d.invoke('reconcile.exceptions', { limit: 1000 }),
        `${d.name} exceptions`,
        log,
      );
      const row = list?.rows[op.pick % Math.max(1, list.rows.length)];
      if (!row) return;
      expectedRefusal(
        await d.invoke('reconcile.resolve', { collectionId: row.collectionId, note: `checked by ${d.login}` }),
        `${d.name} resolve ${row.merchantReference}`,
        log,
      );
      return;
    }
    case 'resolveOrphan': {
      const d = desk(op.desk);
      const list = expectedRefusal(await d.invoke('reconcile.orphans', { limit: 1000 }), `${d.name} orphans`, log);
      const open = list?.rows.filter((o) => o.resolvedByEventId === null) ?? [];
      const row = open[op.pick % Math.max(1, open.length)];
      if (!row) return;
      expectedRefusal(
        await d.invoke('reconcile.resolve', { orphanEventId: row.eventId, note: `orphan checked by ${d.login}` }),
        `${d.name} resolve orphan ${row.merchantReference}`,
        log,
      );
      return;
    }
    case 'import': {
      const d = desk(op.desk);
      const refs = await references(w);
      const known = refs[op.pick % Math.max(1, refs.length)];
      const line =
        op.unknown || !known
          ? callbackLine(w.sb.signingKey, `MD-UNKNOWN-${op.pick}`, op.status, 1000, 'UGX')
          : callbackLine(
              w.sb.signingKey,
              known.ref,
              op.status,
              known.amount + (op.wrongAmount ? 100 : 0),
              known.currency,
            );
      expectedRefusal(await d.invoke('callbacks.import', { content: line + '\n' }), `${d.name} import`, log);
      return;
    }
    case 'role': {
      const d = desk(op.desk);
      try {
        await setOperatorRole({ pool: w.team.owner }, d.login, op.role);
        log.push(`${d.login} is now ${op.role}`);
      } catch (e) {
        // The database keeps an enabled admin: moving the last one is refused, as an admin would be told.
        if (!/last enabled admin/.test((e as Error).message)) throw e;
        log.push(`${d.login} stays: ${(e as Error).message}`);
      }
      return;
    }
    case 'outage': {
      const d = desk(op.desk);
      await d.relay.cut();
      await new Promise((r) => setTimeout(r, op.ms));
      await d.relay.restore();
      return;
    }
    case 'restart': {
      await desk(op.desk).restart();
      return;
    }
  }
}
