// What PostgreSQL spends per callback row of serve's group statement (issue 31), without serve: groups
// of serve-like callback rows (payload and evidence as the bench's callbacks carry them) inserted as a
// receiver login by the statement serve sends (store/pg/event-inserts.ts insertJudgedEvents), durable, and
// the backend's own CPU per row read from /proc. `--hold` keeps the server afterwards and prints its URL,
// for a closer look with psql (EXPLAIN ANALYZE of an insert names each trigger's time).
//   npx tsx test/bench/serve-rows.ts [--groups N] [--group N] [--preload N] [--hold]
// PostgreSQL runs as the `postgres` user when this runs as root: TMPDIR must be a folder it can reach.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { serverUrl, startServer, stopServerSync } from '../support/postgres-server.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { insertJudgedEvents, type EventInsertRow } from '../../main/store/pg/event-inserts.js';

const { values: opt } = parseArgs({
  options: {
    groups: { type: 'string', default: '200' },
    group: { type: 'string', default: '64' },
    preload: { type: 'string', default: '20000' },
    /** Keeps the server until interrupted, printing its URL (for a closer look with psql). */
    hold: { type: 'boolean', default: false },
  },
  strict: true,
});
const GROUPS = Number(opt.groups);
const GROUP = Number(opt.group);

let n = 0;
/** A callback row as serve's store makes it (callbacks/callback-event.ts), with the bench's sizes. */
function callbackRow(): EventInsertRow {
  n += 1;
  const ref = `BENCH-${String(n).padStart(8, '0')}`;
  const payload = JSON.stringify({
    event: 'transaction.completed',
    payload: {
      id: 5_000_000 + n,
      merchant_reference: ref,
      internal_reference: `INT-${n}`,
      transaction_type: 'Collection',
      request_currency: 'KES',
      request_amount: 1234.5,
      transaction_currency: 'KES',
      transaction_amount: 1234.5,
      transaction_charge: 43.21,
      total_credit: 1191.29,
      charge_customer: false,
      provider_code: 'CARD_KES',
      customer_name: 'Bench Customer',
      transaction_status: 'COMPLETED',
      status_message: 'Approved',
    },
  });
  const evidence = JSON.stringify({
    hmac: `t=1764250000,s=${crypto.randomBytes(32).toString('hex')}`,
    rsa: crypto.randomBytes(512).toString('base64'),
  });
  return {
    event_key: `callback:${ref}:${crypto.randomBytes(32).toString('hex')}`,
    merchant_reference: ref,
    internal_reference: `INT-${n}`,
    source: 'callback',
    kind: 'outcome',
    status: 'completed',
    amount_minor: '123450',
    currency: 'KES',
    signature: 'verified',
    payload,
    evidence,
    note: null,
    payment_url: null,
    status_message: 'Approved',
    occurred_at: new Date().toISOString(),
  };
}

/** CPU ms of a process (utime + stime). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

const server = await startServer();
try {
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query('ALTER SYSTEM SET fsync = on');
  await admin.query('ALTER SYSTEM SET synchronous_commit = on');
  await admin.query('ALTER SYSTEM SET full_page_writes = on');
  await admin.query('SELECT pg_reload_conf()');
  await admin.query('CREATE DATABASE team_rows');
  const owner = openTeamPool(serverUrl(server, 'team_rows'));
  await migrate(owner);
  const password = crypto.randomBytes(18).toString('hex');
  await addOperator({ pool: owner }, { login: 'serve_rows', role: 'receiver', password, displayName: 'rows' });
  const client = new pg.Client({ connectionString: serverUrl(server, 'team_rows', 'serve_rows', password) });
  await client.connect();
  const pid = Number((await client.query('SELECT pg_backend_pid() AS p')).rows[0].p);
  const group = (size: number) => Array.from({ length: size }, callbackRow);
  for (let done = 0; done < Number(opt.preload); done += 500) await insertJudgedEvents(client, group(500));
  for (let i = 0; i < 50; i++) await insertJudgedEvents(client, group(GROUP)); // warm the plans
  const groups = Array.from({ length: GROUPS }, () => group(GROUP));
  const c0 = cpuMs(pid);
  const t0 = performance.now();
  for (const g of groups) await insertJudgedEvents(client, g);
  const wall = performance.now() - t0;
  const cpu = cpuMs(pid) - c0;
  const rows = GROUPS * GROUP;
  process.stdout.write(
    `${rows} rows in ${GROUPS} groups of ${GROUP}: backend CPU ${((cpu * 1000) / rows).toFixed(1)} µs a row, ` +
      `wall ${((wall * 1000) / rows).toFixed(1)} µs a row (fsync included)\n`,
  );
  if (opt.hold) {
    process.stdout.write(`${serverUrl(server, 'team_rows')}\n`);
    await new Promise((r) => process.once('SIGINT', r));
  }
  await client.end();
  await owner.end();
  await admin.end();
} finally {
  stopServerSync(server.dir, server.binDir);
}
