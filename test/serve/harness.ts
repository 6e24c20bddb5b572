// Runs the real `merchant-desk serve` (the CLI through tsx, as test/cli does) against a PostgreSQL of
// this test file's own (so it can be stopped) and the embedded sandbox package as the service.
import crypto from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import pg from 'pg';
import { signedString } from '../../main/service/signatures.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import { serverUrl, startServer, type PgServerInfo } from '../support/postgres-server.js';

export interface TeamDb {
  server: PgServerInfo;
  owner: pg.Pool;
  /** The receiver login serve signs in as (no password in it). */
  login: string;
  password: string;
  /** postgres://login@host:port/team — the password goes in PGPASSWORD. */
  url: string;
}

export async function teamDatabase(): Promise<TeamDb> {
  const server = await startServer();
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE team');
  await admin.end();
  const owner = openTeamPool(serverUrl(server, 'team'));
  await migrate(owner);
  const login = 'serve_receiver';
  const password = `pw-${crypto.randomBytes(12).toString('hex')}`;
  await addOperator({ pool: owner }, { login, role: 'receiver', password, displayName: 'serve' });
  return { server, owner, login, password, url: `postgres://${login}@${server.host}:${server.port}/team` };
}

export interface Serve {
  child: ChildProcessWithoutNullStreams;
  /** http://127.0.0.1:PORT */
  base: string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts serve and waits for its "serve listening" log line. */
export function startServe(args: string[], env: NodeJS.ProcessEnv): Promise<Serve> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli/main.ts', 'serve', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, MERCHANT_DESK_LOG_LEVEL: 'info', ...env },
  });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${err}`)), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      for (const line of err.split('\n')) {
        if (!line.includes('"serve listening"')) continue;
        const { port } = JSON.parse(line) as { port: number };
        clearTimeout(timer);
        resolve({ child, base: `http://127.0.0.1:${port}`, stderr: () => err, exited });
        return;
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${err}`));
    });
  });
}

/** Stops a running serve as a service manager does (SIGTERM) and gives its exit code; undefined if it was not running. */
export async function stopServe(serve: Serve | undefined): Promise<number | null | undefined> {
  if (!serve || serve.child.exitCode !== null) return undefined;
  serve.child.kill('SIGTERM');
  return await serve.exited;
}

let n = 0;
/** A COMPLETED callback for `ref`, signed with the merchant signing key (HMAC), as the service sends it. */
export function signedCallback(
  signingKey: string,
  over: { ref?: string; status?: string; amount?: number } = {},
): { body: string; headers: Record<string, string>; ref: string } {
  const ref = over.ref ?? `SERVE-${process.pid}-${++n}`;
  const status = over.status ?? 'COMPLETED';
  const fields = {
    event: `transaction.${status.toLowerCase()}`,
    merchant_reference: ref,
    internal_reference: `INT-${ref}`,
    transaction_type: 'Collection',
    transaction_status: status,
  };
  const body = JSON.stringify({
    event: fields.event,
    payload: {
      id: 1000 + n,
      merchant_reference: ref,
      internal_reference: fields.internal_reference,
      transaction_type: 'Collection',
      request_currency: 'NGN',
      request_amount: over.amount ?? 1500.5,
      transaction_currency: 'NGN',
      transaction_amount: over.amount ?? 1500.5,
      transaction_charge: 10,
      total_credit: (over.amount ?? 1500.5) - 10,
      charge_customer: false,
      provider_code: 'CARD_NGN',
      customer_name: 'Serve Test',
      transaction_status: status,
      status_message: 'Approved',
    },
  });
  const mac = crypto.createHmac('sha256', signingKey).update(signedString(fields)).digest('hex');
  return {
    ref,
    body,
    headers: { 'content-type': 'application/json', 'hmac-signature': `t=${Math.floor(Date.now() / 1000)},s=${mac}` },
  };
}
