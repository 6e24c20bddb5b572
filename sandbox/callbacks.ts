// Callback delivery: signed JSON POSTs to the callback URL, retried until a 2xx with exponential
// back-off (1 s, 2 s, 4 s ... capped at 60 s, divided by timeScale). Pending deliveries live in
// the outbox table, so they survive a restart. Modes (test controls): duplicate, delay, hold, reorder.
import type { SandboxDb } from './store.js';
import type { Signer } from './signing.js';
import type { CallbackEvent, CallbackLogEntry, CallbackMode, FinalStatus } from './types.js';
import { iso } from './clock.js';
import type { Clock } from '../main/clock.js';

interface OutboxRow {
  id: number;
  merchant_reference: string;
  event: CallbackEvent;
  transaction_status: FinalStatus;
  body: string;
  attempts: number;
  held: number;
}

export interface CallbackBody {
  event: CallbackEvent;
  payload: {
    merchant_reference: string;
    internal_reference: string;
    transaction_type: string;
    transaction_status: FinalStatus;
    [k: string]: unknown;
  };
}

export const CALLBACK_MODES: CallbackMode[] = ['normal', 'duplicate', 'delay', 'reorder', 'hold'];
const MAX_BACKOFF_MS = 60_000;
const SEND_TIMEOUT_MS = 10_000;

export class CallbackDispatcher {
  mode: CallbackMode = 'normal';
  delayMs = 1000;
  private timers = new Map<number, NodeJS.Timeout>();
  private inflight = new Map<number, AbortController>();
  private closed = false;

  constructor(
    private readonly db: SandboxDb,
    private readonly signer: Signer,
    private readonly clock: Clock,
    private readonly getUrl: () => string | null,
    private readonly timeScale: number,
  ) {}

  /** Re-arms deliveries left in the outbox by a previous run. */
  start(): void {
    this.kick();
  }

  /** Tries every waiting (not held) delivery now, e.g. after the callback URL changed. */
  kick(): void {
    const rows = this.db.prepare('SELECT id FROM outbox WHERE held = 0 ORDER BY id').all() as { id: number }[];
    for (const r of rows) if (!this.inflight.has(r.id)) this.schedule(r.id, 0);
  }

  /** Queues a callback according to the mode. Safe inside a transaction: sends start after it. */
  enqueue(body: CallbackBody): void {
    const copies = this.mode === 'duplicate' ? 2 : 1;
    const held = this.mode === 'hold' || this.mode === 'reorder' ? 1 : 0;
    const ins = this.db.prepare(
      'INSERT INTO outbox (merchant_reference, event, transaction_status, body, held) VALUES (?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < copies; i++) {
      const id = Number(
        ins.run(
          body.payload.merchant_reference,
          body.event,
          body.payload.transaction_status,
          JSON.stringify(body),
          held,
        ).lastInsertRowid,
      );
      if (!held) this.schedule(id, this.mode === 'delay' ? this.delayMs : 0);
    }
  }

  /** Sends held callbacks: in order, or newest first in reorder mode. Each first attempt is awaited in turn. */
  async release(): Promise<number> {
    const order = this.mode === 'reorder' ? 'DESC' : 'ASC';
    const rows = this.db.prepare(`SELECT id FROM outbox WHERE held = 1 ORDER BY id ${order}`).all() as { id: number }[];
    this.db.prepare('UPDATE outbox SET held = 0 WHERE held = 1').run();
    for (const r of rows) await this.attempt(r.id);
    return rows.length;
  }

  pendingCount(): { pending: number; held: number } {
    const r = this.db.prepare('SELECT COUNT(*) AS pending, COALESCE(SUM(held), 0) AS held FROM outbox').get() as {
      pending: number;
      held: number;
    };
    return r;
  }

  log(): CallbackLogEntry[] {
    const rows = this.db.prepare('SELECT entry FROM callback_log ORDER BY id').all() as { entry: string }[];
    return rows.map((r) => JSON.parse(r.entry) as CallbackLogEntry);
  }

  async settled(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const n = (this.db.prepare('SELECT COUNT(*) AS n FROM outbox WHERE held = 0').get() as { n: number }).n;
      if (n === 0 && this.inflight.size === 0) return;
      if (Date.now() > deadline) throw new Error(`${n} callback(s) still undelivered after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const c of this.inflight.values()) c.abort();
    // let aborted sends unwind before the database closes
    for (let i = 0; i < 50 && this.inflight.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
  }

  private schedule(id: number, delayMs: number): void {
    if (this.closed) return;
    const old = this.timers.get(id);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.timers.delete(id);
      void this.attempt(id);
    }, delayMs);
    t.unref();
    this.timers.set(id, t);
  }

  private backoffMs(attempts: number): number {
    const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
    return base / this.timeScale;
  }

  private async attempt(id: number): Promise<void> {
    if (this.closed || this.inflight.has(id)) return;
    const row = this.db.prepare('SELECT * FROM outbox WHERE id = ?').get(id) as OutboxRow | undefined;
    if (!row || row.held) return;
    const body = JSON.parse(row.body) as CallbackBody;
    const attemptNo = row.attempts + 1;
    const url = this.getUrl();
    const entry: CallbackLogEntry = {
      merchant_reference: row.merchant_reference,
      event: row.event,
      transaction_status: row.transaction_status,
      status: 'no_callback_url',
      http_status: null,
      attempt: attemptNo,
      at: iso(this.clock.now()),
      url,
    };
    let delivered = false;
    if (url) {
      const sig = this.signer.sign({ event: body.event, ...body.payload });
      const ac = new AbortController();
      this.inflight.set(id, ac);
      const timer = setTimeout(() => ac.abort(), SEND_TIMEOUT_MS);
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'hmac-signature': sig.hmac,
            'rsa-signature': sig.rsa,
            'user-agent': 'merchant-desk-sandbox/1',
          },
          body: row.body,
          signal: ac.signal,
          redirect: 'manual',
        });
        await res.arrayBuffer().catch(() => undefined);
        entry.http_status = res.status;
        delivered = res.status >= 200 && res.status < 300;
        entry.status = delivered ? 'delivered' : 'http_error';
      } catch (e) {
        entry.status = 'network_error';
        entry.error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      } finally {
        clearTimeout(timer);
        this.inflight.delete(id);
      }
    }
    if (this.closed) return;
    entry.at = iso(this.clock.now());
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO callback_log (entry) VALUES (?)').run(JSON.stringify(entry));
      if (delivered) this.db.prepare('DELETE FROM outbox WHERE id = ?').run(id);
      else this.db.prepare('UPDATE outbox SET attempts = ? WHERE id = ?').run(attemptNo, id);
    })();
    if (!delivered) this.schedule(id, this.backoffMs(attemptNo));
  }
}
