// Synthetic history for the benchmark: 1,000,000 collections with their events (the mix of outcomes a
// year of card payments could have, including every reconciliation kind) and 100,000 balance snapshots.
// One transaction, prepared statements; secondary indexes are dropped first and rebuilt after.
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { formatMinor } from '../../main/money/index.js';
import { callbackEvidence, redirectEvidence } from '../../main/collections/evidence.js';
import { signedString } from '../../main/service/signatures.js';

export interface GenerateOptions {
  file: string;
  collections: number;
  snapshots: number;
  /** The last `ingestTargets` collections are left PENDING for the ingestion benchmark. */
  ingestTargets: number;
  now: number;
  /**
   * How many years the history spans, ending at `now` (default 1: the bench's year). A bigger history in
   * one year is a busier merchant (each day and month holds more); over more years, a longer one.
   */
  years?: number;
  /** Makes the schema (default: this tree's openDatabase); ingest.ts passes an older tree's to compare. */
  open?: (file: string) => { close(): void };
}

export interface Generated {
  collections: number;
  events: number;
  snapshots: number;
  pollRuns: number;
  firstCreatedAt: number;
  lastCreatedAt: number;
  /** merchant_reference, internal_reference, currency, amount (minor) of the PENDING ingestion targets. */
  targets: { ref: string; internal: string; currency: string; amountMinor: number }[];
}

const YEAR = 365 * 86_400_000;
const CURRENCIES = ['UGX', 'UGX', 'UGX', 'UGX', 'UGX', 'KES', 'KES', 'KES', 'TZS', 'USD'];
const NAMES = [
  'Okello James',
  'Amina Hassan',
  'Nakato, Sarah',
  'Peter "PK" Kamau',
  'Grace Achieng',
  'Mwangi & Sons Ltd',
  'Zawadi Mollel',
  'Brian Otieno',
  'Aisha Nansubuga',
  "John O'Neil",
  'Ruth Wanjiru',
  'Samuel Mugisha',
];

/** The service's callback body for a collection's outcome, as the payload of its callback event. */
export function callbackPayload(
  ref: string,
  internal: string,
  status: string,
  cur: string,
  amount: number,
  id: number,
): string {
  const charge = Math.floor((amount * 35 + 500) / 1000);
  const a = formatMinor(amount, cur);
  return `{"event":"${outcomeEvent(status)}","payload":{"id":${id},"merchant_reference":"${ref}","internal_reference":"${internal}","transaction_type":"Collection","request_currency":"${cur}","request_amount":${a},"transaction_currency":"${cur}","transaction_amount":${a},"transaction_charge":${formatMinor(charge, cur)},"total_credit":${formatMinor(amount - charge, cur)},"charge_customer":false,"provider_code":"CARD_${cur}","customer_name":null,"transaction_status":"${status}","status_message":"${status === 'COMPLETED' ? 'Approved' : 'Declined'}"}}`;
}

function outcomeEvent(status: string): string {
  return `transaction.${status === 'COMPLETED' ? 'completed' : status === 'FAILED' ? 'failed' : 'cancelled'}`;
}

/**
 * The bench merchant's signing key: the service signed every callback and redirect of the history with
 * it (HMAC-SHA256, cheap to make for millions of events), and a bench desk checks them with it.
 */
export const BENCH_SIGNING_KEY = 'merchant-desk-bench-signing-key';

/**
 * What a writer keeps with a signed event of this history for a teammate's desk to check again
 * (collections/evidence.ts, the shape callbacks/ingest.ts and a captured redirect keep): a callback's
 * hmac-signature header as the service sent it (its body is the event's payload), a redirect's query
 * as captured. Null for an event that is not signed.
 */
export function signedEvidence(
  source: string,
  ref: string,
  internal: string | null,
  status: string | null,
  receivedAt: number,
): string | null {
  if ((source !== 'callback' && source !== 'redirect') || !internal || !status) return null;
  const fields = {
    event: outcomeEvent(status),
    merchant_reference: ref,
    internal_reference: internal,
    transaction_type: 'Collection',
    transaction_status: status,
  };
  const mac = crypto.createHmac('sha256', BENCH_SIGNING_KEY).update(signedString(fields), 'utf8').digest('hex');
  const hmac = `t=${Math.floor(receivedAt / 1000)},s=${mac}`;
  if (source === 'callback') return callbackEvidence({ hmac, rsa: null });
  const query = new URLSearchParams({ ...fields, hmac_signature: hmac });
  return redirectEvidence(`https://merchant-desk.invalid/return?${query}`);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export function generate(o: GenerateOptions): Generated {
  (o.open ?? openDatabase)(o.file).close(); // schema and migrations, as the app makes them
  const db = new Database(o.file);
  // A rollback journal, not the app's WAL: the whole history is one transaction, and in the WAL it was
  // written twice (the WAL, as large as the database, then copied into the file on close: 3.3 GB written
  // for a 1.77 GB year). A rollback journal keeps only the few pages that existed before the transaction
  // (the empty schema's). journal_mode OFF, asked here before, is refused without an error: SQLite does
  // not leave WAL for OFF in one step, and better-sqlite3's defensive mode refuses OFF anyway.
  db.pragma('journal_mode = DELETE');
  db.pragma('foreign_keys = OFF'); // events are written before their collection row (ids are known)
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  // Rebuilding secondary indexes after the load is much faster than maintaining them row by row.
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('collections', 'collection_events', 'balance_snapshots', 'poll_runs')",
    )
    .all() as { name: string; sql: string }[];
  for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);

  const insC = db.prepare(
    `INSERT INTO collections (id, merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
       charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4, status,
       status_changed_at, internal_reference, payment_url, status_message, last_event_id, redirect_status, redirect_signature,
       callback_status, flags, final_changes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?, 'https://merchant-desk.invalid/return', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insE = db.prepare(
    `INSERT INTO collection_events (id, collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
       signature, amount_minor, currency, dedupe_key, payload, note, actor)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
  );
  const insP = db.prepare(
    `INSERT INTO poll_runs (id, kind, started_at, finished_at, outcome, changed_rows) VALUES (?, 'balances', ?, ?, 'ok', ?)`,
  );
  const insS = db.prepare(
    `INSERT INTO balance_snapshots (poll_run_id, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  const rand = rng(42);
  const span = Math.round(YEAR * (o.years ?? 1));
  const start = o.now - span;
  const step = Math.floor(span / o.collections);
  let eventId = 0;
  const targets: Generated['targets'] = [];
  const operators = ['Ann', 'Ben', 'Chloe'];

  let events = 0;
  db.transaction(() => {
    for (let i = 1; i <= o.collections; i++) {
      const created = start + i * step;
      const cur = CURRENCIES[Math.floor(rand() * CURRENCIES.length)]!;
      const amount =
        cur === 'UGX'
          ? 1000 * (5 + Math.floor(rand() * 2000))
          : 100 * (1 + Math.floor(rand() * 5000)) + Math.floor(rand() * 100);
      const ref = `MD-${new Date(created).toISOString().slice(0, 10).replace(/-/g, '')}-${i.toString(36).toUpperCase().padStart(5, '0')}`;
      const internal = `INT${(1_000_000_000 + i).toString(16).toUpperCase()}`;
      const customer = NAMES[Math.floor(rand() * NAMES.length)]!;
      const description = rand() < 0.002 ? `=HYPERLINK("x") order ${i % 10000}` : `Phone order ${i % 100000}`;
      const isTarget = i > o.collections - o.ingestTargets;
      const r = isTarget ? -1 : rand();
      const ev = (
        kind: string,
        source: string,
        status: string | null,
        at: number,
        sig: string,
        extra: { amount?: number; payload?: string; dedupe?: string } = {},
      ) => {
        insE.run(
          ++eventId,
          i,
          ref,
          source === 'intent' ? null : internal,
          source,
          kind,
          status,
          at,
          sig,
          extra.amount ?? null,
          extra.amount !== undefined ? cur : null,
          extra.dedupe ?? null,
          extra.payload ?? null,
        );
        events++;
        return eventId;
      };
      let status = 'PENDING';
      let redirectStatus: string | null = null;
      let callbackStatus: string | null = null;
      let flags = 0;
      let finalChanges = 0;
      let changedAt = created + 900;
      ev('intent_saved', 'intent', 'INTENT', created, 'not_applicable');
      if (r >= 0 && r < 0.01) {
        ev('initialize_rejected', 'initiate', 'REJECTED', created + 800, 'not_applicable');
        status = 'REJECTED';
      } else if (r >= 0.01 && r < 0.02) {
        ev('initialize_unknown', 'initiate', 'UNKNOWN', created + 30_000, 'not_applicable');
        status = 'UNKNOWN';
        changedAt = created + 30_000;
      } else {
        ev('initialize_accepted', 'initiate', 'PENDING', created + 900, 'not_applicable');
        if (r < 0 || (r >= 0.02 && r < 0.05)) {
          // pending (and the ingestion targets)
        } else {
          // 85% approved, 8% declined, 2% cancelled; from 0.95 up, approved ones with a twist (below).
          let final = r < 0.85 || r >= 0.95 ? 'COMPLETED' : r < 0.93 ? 'FAILED' : 'CANCELLED';
          const at = created + 60_000 + Math.floor(rand() * 120_000);
          if (final !== 'CANCELLED' && (rand() < 0.7 || (r >= 0.95 && r < 0.96))) {
            const redirectSays = r >= 0.95 && r < 0.96 ? 'COMPLETED' : final;
            if (r >= 0.95 && r < 0.96) {
              final = 'FAILED'; // redirect and callback disagree
              flags |= 16;
            }
            ev('outcome', 'redirect', redirectSays, at, 'verified');
            redirectStatus = redirectSays;
          }
          const amountSeen = r >= 0.96 && r < 0.965 ? amount - 100 : amount;
          if (amountSeen !== amount) flags |= 2;
          ev('outcome', 'callback', final, at + 2000, 'verified', {
            amount: amountSeen,
            payload: callbackPayload(ref, internal, final, cur, amountSeen, i),
            dedupe: `callback:${ref}:${final}`,
          });
          callbackStatus = final;
          status = final;
          changedAt = at;
          if (r >= 0.965 && r < 0.975 && final === 'COMPLETED') {
            ev('final_status_changed', 'callback', 'FAILED', at + 600_000, 'verified', {
              amount,
              payload: callbackPayload(ref, internal, 'FAILED', cur, amount, i),
              dedupe: `callback:${ref}:FAILED`,
            });
            status = callbackStatus = 'FAILED';
            flags |= 1;
            finalChanges = 1;
            changedAt = at + 600_000;
          }
          if (r >= 0.975 && r < 0.98) {
            ev('bad_signature', 'security', final, at + 5000, 'invalid', {
              payload: '{"forged":true}',
              dedupe: `security:${ref}`,
            });
            flags |= 8;
          }
        }
      }
      if (isTarget) targets.push({ ref, internal, currency: cur, amountMinor: amount });
      insC.run(
        i,
        ref,
        created,
        amount,
        cur,
        description,
        customer,
        rand() < 0.5 ? `${customer.split(/[ ,]/)[0]!.toLowerCase()}@example.com` : null,
        operators[i % 3],
        `CARD_${cur}`,
        i % 2 ? 'visa' : 'mastercard',
        String(1000 + (i % 9000)),
        status,
        changedAt,
        status === 'REJECTED' ? null : internal,
        status === 'REJECTED' ? null : `https://pay.example.invalid/pay/${internal}`,
        status === 'COMPLETED' ? 'Approved' : null,
        eventId,
        redirectStatus,
        redirectStatus ? 'verified' : null,
        callbackStatus,
        flags,
        finalChanges,
      );
    }

    // Balance polls: every ~10 minutes over the year, two wallets changing per poll.
    const wallets: { cur: string; type: string; avail: number; unc: number; res: number }[] = [];
    for (const cur of ['UGX', 'KES', 'TZS', 'USD'])
      for (const type of ['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'])
        wallets.push({ cur, type, avail: 50_000_000, unc: 1_000_000, res: 200_000 });
    const polls = Math.ceil(o.snapshots / 2);
    const pstep = Math.floor(span / polls);
    let snaps = 0;
    for (let p = 1; p <= polls && snaps < o.snapshots; p++) {
      const at = start + p * pstep;
      insP.run(p, at - 200, at, 2);
      for (let k = 0; k < 2 && snaps < o.snapshots; k++) {
        const w = wallets[Math.floor(rand() * wallets.length)]!;
        const move = Math.floor(rand() * 200_000) - 80_000;
        w.avail = Math.max(0, w.avail + move);
        w.unc = Math.max(0, w.unc + Math.floor(rand() * 20_000) - 10_000);
        w.res = Math.max(0, w.res + Math.floor(rand() * 2_000) - 900);
        insS.run(p, at, w.cur, w.type, w.avail, w.avail + w.unc + w.res, w.unc, w.res);
        snaps++;
      }
    }
  })();
  for (const ix of indexes) db.exec(ix.sql);
  db.exec('ANALYZE');
  db.pragma('journal_mode = WAL');
  const result: Generated = {
    collections: o.collections,
    events,
    snapshots: db.prepare('SELECT COUNT(*) FROM balance_snapshots').pluck().get() as number,
    pollRuns: db.prepare('SELECT COUNT(*) FROM poll_runs').pluck().get() as number,
    firstCreatedAt: start + step,
    lastCreatedAt: start + o.collections * step,
    targets,
  };
  db.close();
  // Written with synchronous=OFF, the history is still mostly in the page cache, unwritten: the kernel's
  // flusher would write those gigabytes while the next measure runs, and that measure's first fsync
  // would wait for them (ext4 orders data before its journal). The app's database never looks like
  // that (every commit of the app is synced), so the history is put on disk here, as part of generating.
  const fd = fs.openSync(o.file, 'r+');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return result;
}
