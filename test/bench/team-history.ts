// The bench's year of team history in PostgreSQL: a database made for it on the throw-away server, and
// generate.ts's history written into team.events as the team would hold it (intents carrying their
// collection row). Apart from team.ts so a run can load it once and measure against it more than once.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { NewEvent } from '../../main/collections/event-rules.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';
import { toTeamEvent } from '../../main/team/record.js';
import { serverUrl, type PgServerInfo } from '../support/postgres-server.js';
import { signedEvidence } from './generate.js';

const log = (msg: string) => process.stderr.write(`[team ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

export async function createDb(server: PgServerInfo, name: string): Promise<string> {
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
  ['evidence', 'text'],
] as const;

/**
 * The generated history as the team would hold it: each collection's intent event carries its row,
 * the other events keep their columns, and each callback and redirect the evidence its writer keeps
 * (generate.ts signedEvidence), signed with the bench merchant's key. Loaded as the superuser with
 * triggers off (session_replication_role = replica: only ENABLE ALWAYS triggers fire) and seq given in
 * order, in multi-row inserts of 20,000 (one JSON parameter each): loading is set-up, not what is measured.
 *
 * Except the hash chain (team migration 10): events_zz_chain is made to fire ALWAYS for the load, so the
 * database's own trigger, team.event_canonical and team.chain_step, chains every row as it is inserted
 * (a BEFORE ROW trigger sees the rows its statement inserted before, so a multi-row insert chains in seq
 * order), then is set back. That is the definition every writer's insert uses, and, unlike chaining
 * after the load with migration 10's UPDATE, it leaves the table as the team's would be: one version of
 * each row, in seq order (an UPDATE of every row would double the table and scatter the rows the
 * catch-up reads).
 */
export async function loadHistory(pool: pg.Pool, file: string): Promise<number> {
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
  await client.query('ALTER TABLE team.events ENABLE ALWAYS TRIGGER events_zz_chain');
  const insert = `INSERT INTO team.events (seq, event_key, merchant_reference, internal_reference, source, kind, status,
      amount_minor, currency, signature, payload, note, payment_url, status_message, occurred_at, recorded_at, actor, evidence)
    SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency, signature,
      payload, note, payment_url, status_message, to_timestamp(occurred_ms / 1000.0), now(), 'bench', evidence
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
      evidence: signedEvidence(r.source, r.ref, r.internal, r.status, r.received_at),
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
      t.evidence,
    ];
    batch.push(Object.fromEntries(COLUMNS.map(([c], i) => [c, values[i] ?? null])));
    if (batch.length >= 20_000) {
      await flush();
      if (seq % 500_000 < 20_000) log(`loaded ${seq.toLocaleString('en')} events into PostgreSQL`);
    }
  }
  await flush();
  await client.query('ALTER TABLE team.events ENABLE TRIGGER events_zz_chain');
  await client.query('RESET session_replication_role');
  await client.query(`SELECT setval('team.events_seq', $1)`, [seq]);
  await client.query('ANALYZE team.events');
  client.release();
  src.close();
  return seq;
}
