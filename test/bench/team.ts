// npm run bench:team: (a) a new desktop catches up a year of team history from PostgreSQL (the
// history of generate.ts: 1,000,000 collections, ~3.6 M events, loaded into team.events); (b) the
// time from recordIntent on desktop A to the collection row on desktop B, over N charges. Starts a
// throw-away PostgreSQL 15 (test/support/postgres-server.ts) and prints ONE JSON object.
// Options: --collections N (default 1000000), --charges N (default 200), --batch N (events per pull,
// default 5000), --keep (leave the temp folders), --phases (the catch-up calls the bulk start itself,
// as the sync's first pull does, and reports wall and CPU time per phase: copy, indexes, reconcileAll).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { systemClock } from '../../main/clock.js';
import type { NewEvent } from '../../main/collections/events.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';
import { openDatabase } from '../../main/store/db.js';
import { migrate } from '../../main/team/migrate.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordIntent, toTeamEvent, type TeamIntent } from '../../main/team/record.js';
import { startTeamSync, type TeamSync } from '../../main/team/sync.js';
import { bulkStart } from '../../main/team/sync/bulk.js';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { generate } from './generate.js';

const log = (msg: string) => process.stderr.write(`[team ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const quiet = { info() {}, warn() {} };

const { values: opt } = parseArgs({
  options: {
    collections: { type: 'string', default: '1000000' },
    charges: { type: 'string', default: '200' },
    batch: { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
    phases: { type: 'boolean', default: false },
  },
  strict: true,
});
const collections = Number(opt.collections);
const charges = Number(opt.charges);
const batchSize = Number(opt.batch);
for (const [name, v] of [
  ['--collections', collections],
  ['--charges', charges],
  ['--batch', batchSize],
] as const)
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number of at least 1`);

async function createDb(server: PgServerInfo, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return serverUrl(server, name);
}

interface SourceRow {
  ref: string;
  internal: string | null;
  source: EventSource;
  kind: EventKind;
  status: string | null;
  received_at: number;
  signature: SignatureState;
  amount_minor: number | null;
  currency: string | null;
  dedupe_key: string | null;
  payload: string | null;
  note: string | null;
  c_created_at: number;
  c_amount: number;
  c_currency: string;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  charge_customer: number;
  allow_final_status_change: number;
  operator: string;
  provider_code: string | null;
  redirect_url: string;
  card_brand: string | null;
  card_last4: string | null;
  payment_url: string | null;
}

const COLUMNS = [
  ['seq', 'bigint'],
  ['event_key', 'text'],
  ['merchant_reference', 'text'],
  ['internal_reference', 'text'],
  ['source', 'text'],
  ['kind', 'text'],
  ['status', 'text'],
  ['amount_minor', 'bigint'],
  ['currency', 'text'],
  ['signature', 'text'],
  ['payload', 'text'],
  ['note', 'text'],
  ['payment_url', 'text'],
  ['status_message', 'text'],
  ['occurred_ms', 'bigint'],
] as const;

/**
 * The generated history as the team would hold it: each collection's intent event carries its row,
 * the other events keep their columns. Loaded as the superuser with triggers off (session_replication_role)
 * and seq given in order, in multi-row inserts of 20,000 (one JSON parameter each): loading is set-up, not what is measured.
 */
async function loadHistory(pool: pg.Pool, file: string): Promise<number> {
  const src = new Database(file, { readonly: true });
  const rows = src
    .prepare(
      `SELECT e.merchant_reference AS ref, e.internal_reference AS internal, e.source, e.kind, e.status, e.received_at,
         e.signature, e.amount_minor, e.currency, e.dedupe_key, e.payload, e.note,
         c.created_at AS c_created_at, c.amount_minor AS c_amount, c.currency AS c_currency, c.description, c.customer_name,
         c.customer_email, c.charge_customer, c.allow_final_status_change, c.operator, c.provider_code, c.redirect_url,
         c.card_brand, c.card_last4, c.payment_url
       FROM collection_events e JOIN collections c ON c.id = e.collection_id ORDER BY e.id`,
    )
    .iterate() as IterableIterator<SourceRow>;
  const client = await pool.connect();
  await client.query('SET session_replication_role = replica');
  const insert = `INSERT INTO team.events (seq, event_key, merchant_reference, internal_reference, source, kind, status,
      amount_minor, currency, signature, payload, note, payment_url, status_message, occurred_at, recorded_at, actor)
    SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency, signature,
      payload, note, payment_url, status_message, to_timestamp(occurred_ms / 1000.0), now(), 'bench'
    FROM json_to_recordset($1::json) AS t(${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})`;
  let seq = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length) await client.query(insert, [JSON.stringify(batch)]);
    batch = [];
  };
  for (const r of rows) {
    const local: NewEvent = {
      collectionId: null,
      merchantReference: r.ref,
      internalReference: r.internal,
      source: r.source,
      kind: r.kind,
      status: r.status,
      receivedAt: r.received_at,
      signature: r.signature,
      amountMinor: r.amount_minor,
      currency: r.currency,
      dedupeKey: r.source === 'intent' ? `intent:${r.ref}` : r.dedupe_key,
      payload: r.payload,
      note: r.note,
      paymentUrl: r.kind === 'initialize_accepted' ? r.payment_url : null,
      statusMessage: r.source === 'callback' && r.status === 'COMPLETED' ? 'Approved' : null,
    };
    const t = toTeamEvent(local);
    if (r.source === 'intent') {
      t.amountMinor = r.c_amount;
      t.currency = r.c_currency;
      t.payload = JSON.stringify({
        description: r.description,
        createdAt: r.c_created_at,
        customerName: r.customer_name,
        customerEmail: r.customer_email,
        chargeCustomer: !!r.charge_customer,
        allowFinalStatusChange: !!r.allow_final_status_change,
        operator: r.operator,
        providerCode: r.provider_code,
        redirectUrl: r.redirect_url,
        cardBrand: r.card_brand,
        cardLast4: r.card_last4,
      });
    }
    const values = [
      ++seq,
      t.eventKey,
      t.merchantReference,
      t.internalReference,
      t.source,
      t.kind,
      t.status,
      t.amountMinor,
      t.currency,
      t.signature,
      t.payload,
      t.note,
      t.paymentUrl,
      t.statusMessage,
      t.occurredAt,
    ];
    batch.push(Object.fromEntries(COLUMNS.map(([c], i) => [c, values[i] ?? null])));
    if (batch.length >= 20_000) {
      await flush();
      if (seq % 500_000 < 20_000) log(`loaded ${seq.toLocaleString('en')} events into PostgreSQL`);
    }
  }
  await flush();
  await client.query(`SELECT setval('team.events_seq', $1)`, [seq]);
  await client.query('ANALYZE team.events');
  client.release();
  src.close();
  return seq;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The catch-up alone, timed: through the sync as a desktop runs it, or (--phases) the bulk start by phase. */
async function runCatchUp(pool: pg.Pool, db: ReturnType<typeof openDatabase>) {
  let lastLog = performance.now();
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  if (opt.phases) {
    const phases: Record<string, { wallSeconds: number; cpuSeconds: number; waitSeconds?: number }> = {};
    let mark = { t: start, cpu: cpuStart };
    const r = await bulkStart({
      pool,
      db,
      now: () => Date.now(),
      onPhase: (phase, detail) => {
        const t = performance.now();
        const cpu = process.cpuUsage();
        phases[phase] = {
          wallSeconds: Number(((t - mark.t) / 1000).toFixed(1)),
          cpuSeconds: Number(((cpu.user - mark.cpu.user + cpu.system - mark.cpu.system) / 1e6).toFixed(1)),
          ...(detail ? { waitSeconds: Number((detail.waitMs / 1000).toFixed(1)) } : {}),
        };
        mark = { t, cpu };
      },
    });
    if (!r) throw new Error('the bulk start stopped part way');
    return finish(phases);
  }
  const sync: TeamSync = startTeamSync({
    pool,
    db,
    clock: systemClock,
    logger: quiet,
    batchSize,
    pollEveryMs: 3_600_000,
    onApplied: () => {
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`caught up ${sync.status().lastSeq.toLocaleString('en')} events`);
      }
    },
  });
  sync.onStatus((s) => {
    if (s.catchingUp && performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(
        `copied ${s.catchingUp.copiedSeq.toLocaleString('en')} of ${s.catchingUp.totalSeq.toLocaleString('en')} events`,
      );
    }
  });
  await sync.pullNow();
  const result = finish();
  await sync.close();
  return result;

  function finish(phases?: Record<string, unknown>) {
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    return { ms, cpu, phases };
  }
}

async function catchUp(server: PgServerInfo, work: string) {
  const source = path.join(work, 'history.sqlite');
  log(`generating ${collections.toLocaleString('en')} collections`);
  const gen = generate({ file: source, collections, snapshots: 0, ingestTargets: 0, now: Date.now() });
  const pool = openTeamPool(await createDb(server, 'team_catchup'), { max: 4 });
  await migrate(pool);
  const loadStart = performance.now();
  const events = await loadHistory(pool, source);
  log(`loaded ${events.toLocaleString('en')} events in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);
  const db = openDatabase(path.join(work, 'new-desktop.sqlite'));
  const loadAtStart = os.loadavg()[0]!;
  const { ms, cpu, phases } = await runCatchUp(pool, db);
  const local = db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;
  const rows = db.prepare('SELECT count(*) FROM collections').pluck().get() as number;
  const reconciled = db.prepare('SELECT count(*) FROM reconciliation').pluck().get() as number;
  db.close();
  await pool.end();
  if (local !== events || rows !== gen.collections || reconciled !== gen.collections)
    throw new Error(`caught up ${local}/${events} events, ${rows} collections, ${reconciled} reconciled`);
  return {
    collections: gen.collections,
    events,
    seconds: Number((ms / 1000).toFixed(1)),
    eventsPerSecond: Math.round(events / (ms / 1000)),
    goalSeconds: 60,
    // This process's CPU over the catch-up (PostgreSQL's own work is in its server processes).
    cpuUserSeconds: Number((cpu.user / 1e6).toFixed(1)),
    cpuSystemSeconds: Number((cpu.system / 1e6).toFixed(1)),
    loadAverage: { atStart: Number(loadAtStart.toFixed(2)), atEnd: Number(os.loadavg()[0]!.toFixed(2)) },
    batchSize,
    ...(phases ? { phases } : {}),
  };
}

async function latency(server: PgServerInfo, work: string) {
  const url = await createDb(server, 'team_latency');
  const pool = openTeamPool(url);
  await migrate(pool);
  await pool.end();
  const poolA = openTeamPool(url);
  const poolB = openTeamPool(url);
  const dbA = openDatabase(path.join(work, 'desk-a.sqlite'));
  const dbB = openDatabase(path.join(work, 'desk-b.sqlite'));
  const arrived = new Map<string, number>();
  let wake: (() => void) | undefined;
  const a = startTeamSync({ pool: poolA, db: dbA, clock: systemClock, logger: quiet });
  const b = startTeamSync({
    pool: poolB,
    db: dbB,
    clock: systemClock,
    logger: quiet,
    onApplied: (changed) => {
      const t = performance.now();
      for (const c of changed) if (!arrived.has(c.reference)) arrived.set(c.reference, t);
      wake?.();
    },
  });
  await Promise.all([a.pullNow(), b.pullNow()]);
  await new Promise((r) => setTimeout(r, 500)); // both LISTEN connections are up
  const times: number[] = [];
  for (let i = 0; i < charges; i++) {
    const intent: TeamIntent = {
      merchantReference: `MD-BENCH-${Date.now().toString(36)}-${i}`,
      createdAt: Date.now(),
      amountMinor: 150_000,
      currency: 'UGX',
      description: `Phone order ${i}`,
      customerName: 'Amina Hassan',
      customerEmail: null,
      chargeCustomer: false,
      allowFinalStatusChange: true,
      operator: 'Ann',
      providerCode: 'CARD_UGX',
      redirectUrl: 'https://merchant-desk.invalid/return',
      cardBrand: 'visa',
      cardLast4: '4242',
    };
    const t0 = performance.now();
    await recordIntent(poolA, intent);
    saveIntentCollection(dbA, intent);
    while (!arrived.has(intent.merchantReference)) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    times.push(arrived.get(intent.merchantReference)! - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all([a.close(), b.close()]);
  await Promise.all([poolA.end(), poolB.end()]);
  dbA.close();
  dbB.close();
  times.sort((x, y) => x - y);
  const round = (x: number) => Number(x.toFixed(1));
  return {
    charges,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(times[times.length - 1]!),
    goalP95Ms: 1000,
  };
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-team-'));
log('starting PostgreSQL');
const server = await startServer();
try {
  const latencyResult = await latency(server, work);
  log(`intent to row on B: p95 ${latencyResult.p95Ms} ms`);
  const catchUpResult = await catchUp(server, work);
  log(`catch-up: ${catchUpResult.seconds} s`);
  process.stdout.write(
    JSON.stringify(
      { bench: 'team', node: process.version, catchUp: catchUpResult, intentToRow: latencyResult },
      null,
      2,
    ) + '\n',
  );
} finally {
  stopServerSync(server.dir, server.binDir);
  if (!opt.keep) fs.rmSync(work, { recursive: true, force: true });
}
