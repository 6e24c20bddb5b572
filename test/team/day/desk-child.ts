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
// {id, op: 'view', now?}, {id, op: 'settle'}, {id, op: 'arm', at}, {id, op: 'close'}. Answers: {id, ok,
// value | error}. Besides:
// {type: 'ready'} once signed in and pulled, {type: 'progress', operationId, reference, status} for
// every move of a charge operation (what the window's Take payment screen follows).
import fs from 'node:fs';
import { composeCore, type Core } from '../../../main/app/core.js';
import { createLogger, silentLogger } from '../../../main/log/index.js';
import { buildHandlers } from '../../../main/ipc/handlers/index.js';
import { createDispatcher } from '../../../main/ipc/dispatch.js';
import { lockGate } from '../../../main/ipc/lock-gate.js';
import type { PaymentWindowOpener, PaymentWindowResult } from '../../../main/collections/payment-window.js';
import { outboxCounts } from '../../../main/collections/outbox.js';
import { lastSeq } from '../../../main/store/sqlite/team/sync-state.js';
import { storedStalePendingAfterMs } from '../../../main/store/sqlite/stale-pending.js';
import { deskView, refusedKeys } from '../convergence/views.js';
import type { WindowPlan } from '../convergence/world.js';
import type { KillPoint } from './world.js';

type Message =
  | { id: number; op: 'invoke'; channel: string; request: unknown; plan?: WindowPlan }
  | { id: number; op: 'read'; sql: string; params?: unknown[] }
  | { id: number; op: 'view'; now?: number }
  | { id: number; op: 'settle' }
  | { id: number; op: 'arm'; at: KillPoint | null }
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

// Where the day's fault track may have this desk die (arm): inside a pull's apply (the batch's events
// inserted through the ledger's appendSet, its seq and chain head not yet written: one SQLite transaction)
// or inside a refold (a reference's events rewritten and its projection written, its mark not yet
// cleared: one transaction). The desk's own process kills itself there with SIGKILL, as a power cut would:
// a kill sent from outside lands between two of them by chance only. The wrap is on the process's one
// ledger, which the team sync applies through (appendSet only for a pulled batch, afterRewrite only for a
// refold: collections/ledger.ts); nothing of the app knows of it.
let armed: KillPoint | null = null;
function dieIfArmed(at: KillPoint, what: string): void {
  if (armed !== at) return;
  try {
    // Said first, on stderr, synchronously: the test names where the desk died.
    fs.writeSync(2, `\nday: killed inside ${what}\n`);
  } catch {
    /* a full pipe: the kill still lands */
  }
  process.kill(process.pid, 'SIGKILL');
}
const ledger = { ...core.ledger };
core.ledger.appendSet = (db, events) => {
  const r = ledger.appendSet(db, events);
  dieIfArmed('apply', `a pull's apply of ${events.length} events (${events[0]?.merchantReference ?? ''} first)`);
  return r;
};
core.ledger.afterRewrite = (db, collectionId) => {
  ledger.afterRewrite(db, collectionId);
  dieIfArmed('refold', `the refold of collection ${collectionId}`);
};
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
      if (m.now !== undefined)
        core.reconciler.due(core.db, { now: m.now, stalePendingAfterMs: storedStalePendingAfterMs(core.db) });
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
    case 'arm':
      armed = m.at;
      return null;
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
