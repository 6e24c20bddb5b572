// End to end: the real `merchant-desk serve` process with a real PostgreSQL (this file's own server, so
// it can be stopped) and the embedded sandbox as the service.
// Run: TMPDIR=<a folder the postgres user can reach> bash scripts/with-keyring.sh npx vitest run test/serve
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { ingestCallback } from '../../main/callbacks/ingest.js';
import { stopServerSync } from '../support/postgres-server.js';
import { signedCallback, startServe, teamDatabase, type Serve, type TeamDb } from './harness.js';
import { runCli } from '../support/cli.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

let team: TeamDb;
let sb: Sandbox;
let serve: Serve;
let dir: string;
let env: NodeJS.ProcessEnv;
let serverStopped = false;

beforeAll(async () => {
  dir = fileTempDir('md-serve-test-');
  [team, sb] = await Promise.all([teamDatabase(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
  // Keys as a service manager would hand them over: the signing key and the service public key as
  // credential files, the merchant keys and the database password in the environment.
  const creds = path.join(dir, 'credentials');
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, 'signing-key'), `${sb.signingKey}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(creds, 'service-public-key.pem'), sb.servicePublicKeyPem, { mode: 0o600 });
  env = {
    MERCHANT_DESK_MERCHANT_PUBLIC_KEY: sb.publicKey,
    MERCHANT_DESK_MERCHANT_SECRET_KEY: sb.secretKey,
    PGPASSWORD: team.password,
    CREDENTIALS_DIRECTORY: creds,
  };
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      team.url,
      '--listen',
      '127.0.0.1:0',
      '--service-url',
      sb.baseUrl,
    ],
    env,
  );
}, 90_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await team?.owner.end().catch(() => undefined);
  if (team && !serverStopped) stopServerSync(team.server.dir, team.server.binDir);
  await sb?.close();
});

const post = (c: { body: string; headers: Record<string, string> }) =>
  fetch(`${serve.base}/callbacks/collections`, { method: 'POST', body: c.body, headers: c.headers });

async function eventsFor(ref: string) {
  const r = await team.owner.query(
    `SELECT event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency, signature,
            payload, note, actor FROM team.events WHERE merchant_reference = $1`,
    [ref],
  );
  return r.rows as Record<string, unknown>[];
}

describe('merchant-desk serve', () => {
  it('stores a signed callback in team.events once, field for field as the desktop would, also when delivered twice', async () => {
    const cb = signedCallback(sb.signingKey);
    const first = await post(cb);
    expect(first.status).toBe(200);
    const again = await post(cb);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'ok', result: 'duplicate' });
    const rows = await eventsFor(cb.ref);
    expect(rows).toHaveLength(1);

    // The desktop's own receiver, given the same delivery, stores the same event.
    const local = openDatabase(path.join(dir, 'local.sqlite'));
    try {
      const o = ingestCallback(
        local,
        { body: Buffer.from(cb.body), headers: cb.headers, source: 'callback' },
        { keys: { signingKey: sb.signingKey, servicePublicKey: null }, now: Date.now(), ledger },
      );
      expect(o.result).toBe('imported');
      const mine = local
        .prepare(
          `SELECT dedupe_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
                  signature, payload, note FROM collection_events WHERE merchant_reference = ?`,
        )
        .get(cb.ref) as Record<string, unknown>;
      const row = rows[0]!;
      expect(row).toMatchObject({
        event_key: mine.dedupe_key,
        merchant_reference: mine.merchant_reference,
        internal_reference: mine.internal_reference,
        source: 'callback',
        kind: mine.kind,
        status: 'COMPLETED',
        amount_minor: String(mine.amount_minor),
        currency: mine.currency,
        signature: 'verified',
        payload: cb.body,
        note: mine.note,
        actor: team.login,
      });
      expect(mine.amount_minor).toBe(150_050);
    } finally {
      local.close();
    }
  });

  it('a bad signature is answered 401, never reaches team.events, and is counted in the security log', async () => {
    const cb = signedCallback('not-the-signing-key');
    const r = await post(cb);
    expect(r.status).toBe(401);
    const missing = signedCallback(sb.signingKey);
    const r2 = await post({ body: missing.body, headers: { 'content-type': 'application/json' } });
    expect(r2.status).toBe(401);
    expect(await eventsFor(cb.ref)).toHaveLength(0);
    expect(await eventsFor(missing.ref)).toHaveLength(0);
    // Counts are written within a second (security-log.ts).
    const file = path.join(dir, 'serve', 'serve.sqlite');
    let counted: Record<string, number> = {};
    for (let i = 0; i < 50 && !(counted.bad_signature && counted.missing_signature); i++) {
      await new Promise((res) => setTimeout(res, 100));
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        counted = Object.fromEntries(
          (
            db.prepare('SELECT reason, sum(count) AS n FROM callback_security_log GROUP BY reason').all() as {
              reason: string;
              n: number;
            }[]
          ).map((x) => [x.reason, x.n]),
        );
      } finally {
        db.close();
      }
    }
    expect(counted).toMatchObject({ bad_signature: 1, missing_signature: 1 });
    // serve's file holds its security log and nothing of a desk's schema.
    const own = new Database(file, { readonly: true, fileMustExist: true });
    try {
      expect(own.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual([
        'callback_security_log',
      ]);
    } finally {
      own.close();
    }
  });

  it('polls balances and payment options once for the team into PostgreSQL', async () => {
    let snapshots = 0;
    let lists: { options: unknown[] }[] = [];
    for (let i = 0; i < 100 && (snapshots === 0 || lists.length === 0); i++) {
      snapshots = Number((await team.owner.query('SELECT count(*) AS n FROM team.balance_snapshots')).rows[0].n);
      lists = (await team.owner.query('SELECT options, actor FROM team.payment_option_lists')).rows as typeof lists;
      if (snapshots === 0 || lists.length === 0) await new Promise((res) => setTimeout(res, 100));
    }
    expect(snapshots).toBeGreaterThan(0);
    expect(lists).toHaveLength(1);
    expect(lists[0]!.options.length).toBeGreaterThan(0);
    expect(lists[0]).toMatchObject({ actor: team.login });
    const snap = (await team.owner.query('SELECT * FROM team.balance_snapshots ORDER BY seq LIMIT 1')).rows[0];
    expect(snap.currency).toMatch(/^[A-Z]{3}$/);
    expect(BigInt(snap.actual_minor)).toBe(
      BigInt(snap.available_minor) + BigInt(snap.uncleared_minor) + BigInt(snap.reserve_minor),
    );
  });

  it("serve's receiver login may write callback events and poll results, and nothing else", async () => {
    const signedIn = new URL(team.url);
    signedIn.password = encodeURIComponent(team.password);
    const rx = new pg.Client({ connectionString: signedIn.toString() });
    await rx.connect();
    try {
      const manual = rx.query(
        `INSERT INTO team.events (event_key, merchant_reference, source, kind, signature, occurred_at)
         VALUES ('x-manual', 'R', 'manual', 'resolved', 'not_applicable', now())`,
      );
      await expect(manual).rejects.toMatchObject({ code: '42501' });
      await expect(rx.query('SELECT payload FROM team.events')).rejects.toMatchObject({ code: '42501' });
      await expect(rx.query('SELECT * FROM team.balance_snapshots')).rejects.toMatchObject({ code: '42501' });
      await expect(
        rx.query(
          `INSERT INTO team.intents (merchant_reference, amount_minor, currency, description) VALUES ('I', 1, 'NGN', 'd')`,
        ),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await rx.end();
    }
  });

  it('refuses keys and a database password in argv, with where to put them instead', async () => {
    const key = await runCli(['serve', '--database', team.url, '--secret-key', 'sk_live_123'], { env });
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/never taken from the command line/);
    expect(key.stderr).toMatch(/MERCHANT_DESK_MERCHANT_SECRET_KEY/);
    const url = new URL(team.url);
    url.password = 'hunter2hunter2';
    const pw = await runCli(['serve', '--database', url.toString()], { env });
    expect(pw.code).toBe(2);
    expect(pw.stderr).toMatch(/--database: a password may not be given in the URL/);
    expect(pw.stderr).toMatch(/PGPASSWORD/);
    expect(pw.stderr).not.toMatch(/hunter2/);
  });

  it('/healthz is ok, then 503 (and callbacks 503) once PostgreSQL stops; SIGTERM ends serve with exit 0', async () => {
    const ok = await fetch(`${serve.base}/healthz`);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { database: string; lastPoll: { balances: string | null }; uptime: number };
    expect(body.database).toBe('ok');
    expect(body.lastPoll.balances).toMatch(/^\d{4}-/);
    expect(body.uptime).toBeGreaterThanOrEqual(0);

    stopServerSync(team.server.dir, team.server.binDir);
    serverStopped = true;
    const down = await fetch(`${serve.base}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ database: 'down' });
    const cb = await post(signedCallback(sb.signingKey));
    expect(cb.status).toBe(503);

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(serve.stderr()).toMatch(/"stopped"/);
  });
});
