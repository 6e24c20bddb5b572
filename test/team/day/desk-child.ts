// A desk of the team day as a process of its own, so the day can kill it with SIGKILL in the middle of its
// work (a power cut while a charge waits for the service, while a pull applies). The app's core on a team
// data folder (composeCore, as the shells compose it, without a window), its operator signed in, driven by
// the test over process IPC with the same calls its screens make (the IPC dispatcher and its handlers).
// The payment window is a plan the test gives with each call: the customer's page is completed through
// the sandbox's own HTTP controls (as the customer's browser would finish it), or the window is closed.
//
//   MD_DAY_PASSWORD=... MD_DAY_SANDBOX=http://... [MD_DAY_CLOCK_OFFSET_MS=N] \
//     node --import tsx desk-child.ts <data folder>      (forked: messages on the IPC channel)
//
// Messages from the test: {id, op: 'invoke', channel, request, plan?}, {id, op: 'read', sql, params},
// {id, op: 'view'}, {id, op: 'settle'}, {id, op: 'close'}. Answers: {id, ok, value | error}. Besides:
// {type: 'ready'} once signed in and pulled, {type: 'progress', operationId, reference, status} for
// every move of a charge operation (what the window's Take payment screen follows).
import { composeCore, type Core } from '../../../main/app/core.js';
import { createLogger, silentLogger } from '../../../main/log/index.js';
import { buildHandlers } from '../../../main/ipc/handlers/index.js';
import { createDispatcher } from '../../../main/ipc/dispatch.js';
import { lockGate } from '../../../main/ipc/lock-gate.js';
import type { PaymentWindowOpener, PaymentWindowResult } from '../../../main/collections/payment-window.js';
import { outboxCounts } from '../../../main/collections/outbox.js';
import { lastSeq } from '../../../main/store/sqlite/team/sync-state.js';
import { deskView, refusedKeys } from '../convergence/views.js';
import type { WindowPlan } from '../convergence/world.js';

type Message =
  | { id: number; op: 'invoke'; channel: string; request: unknown; plan?: WindowPlan }
  | { id: number; op: 'read'; sql: string; params?: unknown[] }
  | { id: number; op: 'view' }
  | { id: number; op: 'settle' }
  | { id: number; op: 'close' };

const dataDir = process.argv[2]!;
const sandbox = process.env.MD_DAY_SANDBOX!;
const offset = Number(process.env.MD_DAY_CLOCK_OFFSET_MS ?? 0);
const send = (m: unknown) => process.send?.(m);

let plan: WindowPlan = { action: 'close' };

/** The customer's page: finished through the sandbox's controls, as their browser would, or closed. */
const window: PaymentWindowOpener = {
  async open({ paymentUrl }): Promise<PaymentWindowResult> {
    const p = plan;
    if (p.action === 'close') return { kind: 'closed' };
    const ref = core.db
      .prepare('SELECT merchant_reference FROM collections WHERE payment_url = ?')
      .pluck()
      .get(paymentUrl) as string | undefined;
    if (!ref) return { kind: 'error', message: `no collection with payment_url ${paymentUrl}` };
    const r = await fetch(`${sandbox}/__sandbox/collections/${encodeURIComponent(ref)}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: p.outcome }),
    });
    // The page was already finished (the customer paid on another tab, the page expired): the window closes.
    if (!r.ok) return { kind: 'closed' };
    const { redirect_url } = (await r.json()) as { redirect_url: string };
    return { kind: 'redirect', url: redirect_url };
  },
};

const core: Core = await composeCore({
  dataDir,
  clock: { now: () => Date.now() + offset },
  logger: process.env.MD_DAY_DEBUG ? createLogger({ dataDir, level: 'debug' }) : silentLogger(),
  receiver: false,
  poll: false,
  lock: { checkEveryMs: 0 },
  teamSyncEveryMs: 250,
  paymentWindow: window,
});
await core.ready();
await core.lock.unlock(process.env.MD_DAY_PASSWORD!);
const dispatch = createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock));
core.events.subscribe((event, payload) => {
  if (event === 'payment.progress') send({ type: 'progress', ...(payload as object) });
});

async function answer(m: Message): Promise<unknown> {
  switch (m.op) {
    case 'invoke':
      if (m.plan) plan = m.plan;
      return dispatch(m.channel as never, m.request as never);
    case 'read':
      return core.db.prepare(m.sql).all(...(m.params ?? []));
    case 'view':
      return deskView(core.db, { leaveOut: refusedKeys(core.db) });
    case 'settle': {
      // One step towards quiet: pull, send what waits, and say where this desk stands.
      const s = core.team();
      if (s) {
        await s.sync.pullNow().catch(() => 0);
        if (outboxCounts(core.db).pending > 0) s.push.kick();
      }
      return {
        signedIn: s !== null,
        pending: outboxCounts(core.db).pending,
        lastSeq: lastSeq(core.db, 'events'),
        status: s?.sync.status() ?? null,
      };
    }
    case 'close':
      await core.close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

process.on('message', (m: Message) => {
  answer(m).then(
    (value) => send({ id: m.id, ok: true, value }),
    (e: unknown) => send({ id: m.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});
// The test goes away (killed, crashed): so does this desk.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
