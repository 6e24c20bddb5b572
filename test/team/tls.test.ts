// TLS to the team database, against a real PostgreSQL of this file's own started with ssl=on and
// `hostssl` only, with certificates made here with openssl (test/support/tls-certs.ts): the team's CA
// and a server certificate it signed for 127.0.0.1 and localhost, an unrelated CA, and a certificate of
// the team's CA for another host name. The shared test server (no TLS) stands for a server that offers none.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../main/team/listen.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool, poolTls } from '../../main/team/pool.js';
import type { TeamTls } from '../../main/team/tls.js';
import { TeamTlsError } from '../../main/team/errors.js';
import { rememberedPasswordName, TeamUnlocker } from '../../main/team/unlocker.js';
import { offlineCheckName } from '../../main/team/offline-check.js';
import { KeyringAppSecret } from '../../main/secrets/index.js';
import { MemoryAppSecret } from '../../main/secrets/app-secret.js';
import { runCli } from '../support/cli.js';
import { makeTestCertificates } from '../support/tls-certs.js';
import { fileTempDir, tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { loadSettings, openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import {
  serverUrl,
  setServerCertificate,
  startServer,
  stopServerSync,
  type PgServerInfo,
} from '../support/postgres-server.js';

let certs: string;
let server: PgServerInfo;
let plain: TestDatabase;
let pem: Record<string, string> = {};

/** The names in the certificate the server presents now (PostgreSQL's SSLRequest, then TLS unchecked). */
function presentedNames(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.write(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47])));
    sock.once('error', reject);
    sock.once('data', (b) => {
      if (b.toString() !== 'S') return reject(new Error('the server offers no TLS'));
      const t = tls.connect({ socket: sock, rejectUnauthorized: false }, () => {
        const names = t.getPeerCertificate().subjectaltname ?? '';
        t.destroy();
        resolve(names);
      });
      t.once('error', reject);
    });
  });
}

/** Gives the server `name`'s certificate and waits until new connections get it. */
async function serve(name: string, altName: string): Promise<void> {
  await setServerCertificate(server.dir, server.binDir, pem[`${name}.crt`]!, pem[`${name}.key`]!);
  for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if ((await presentedNames(server.port)).includes(altName)) return;
    if (Date.now() > deadline) throw new Error(`the server did not take the certificate ${name}`);
  }
}

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

const LOGIN = 'tls_support';
const PASSWORD = 'tls support password 1';
let url: string; // signed in as LOGIN (the password in memory, as the unlocker does)
let urlNoPassword: string;

const verifyFull = (): TeamTls => ({ sslmode: 'verify-full', ca: pem['team-ca.crt']! });

async function sslOf(pool: pg.Pool): Promise<boolean> {
  const r = await pool.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
  return r.rows[0]!.ssl;
}

/** What a pool with `t` says when it connects (undefined when it connected). */
async function refusal(t: TeamTls, to = url): Promise<Error | undefined> {
  const pool = openTeamPool(to, { tls: t });
  try {
    await pool.query('SELECT 1');
    return undefined;
  } catch (e) {
    const { translatePgError } = await import('../../main/team/errors.js');
    return translatePgError(e, 'sign in', LOGIN);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

beforeAll(async () => {
  certs = fileTempDir('md-tls-certs-');
  pem = makeTestCertificates(certs).pem;
  [server, plain] = await Promise.all([
    startServer({ tls: { cert: pem['db.crt']!, key: pem['db.key']! } }),
    createTestDatabase(),
  ]);
  const owner = openTeamPool(serverUrl(server, 'postgres'), { tls: verifyFull() });
  try {
    await migrate(owner);
    await addOperator(
      { pool: owner },
      { login: LOGIN, role: 'support', password: PASSWORD, displayName: 'TLS support' },
    );
  } finally {
    await owner.end();
  }
  url = serverUrl(server, 'postgres', LOGIN, PASSWORD);
  urlNoPassword = `postgres://${LOGIN}@127.0.0.1:${server.port}/postgres`;
}, 120_000);

afterAll(async () => {
  // What the desk's sign-in kept in the keychain.
  if (urlNoPassword)
    for (const name of [offlineCheckName(urlNoPassword, LOGIN), rememberedPasswordName(urlNoPassword, LOGIN)])
      await new KeyringAppSecret(name).delete().catch(() => undefined);
  if (server) stopServerSync(server.dir, server.binDir);
  await plain?.drop();
});

describe('TLS to the team database', () => {
  it('verify-full with the team CA connects encrypted: the pool, the LISTEN connection and a signed-in desk', async () => {
    const pool = openTeamPool(url, { tls: verifyFull() });
    try {
      expect(await sslOf(pool)).toBe(true);
      expect(poolTls(pool)).toEqual(verifyFull());
      const listener = await listen(url, () => undefined, { tls: poolTls(pool) });
      try {
        const r = await pool.query<{ ssl: boolean }>(
          `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
            WHERE a.application_name = 'merchant-desk listen' AND a.usename = $1`,
          [LOGIN],
        );
        expect(r.rows.map((x) => x.ssl)).toEqual([true]);
      } finally {
        await listener.close();
      }
    } finally {
      await pool.end();
    }

    let signedIn: pg.Pool | undefined;
    const unlocker = new TeamUnlocker({
      databaseUrl: urlNoPassword,
      tls: verifyFull(),
      login: LOGIN,
      remembered: new MemoryAppSecret(),
      onSignIn: (p) => {
        signedIn = p;
      },
    });
    expect(await unlocker.verify(PASSWORD)).toBe(true);
    try {
      expect(await sslOf(signedIn!)).toBe(true);
    } finally {
      await signedIn?.end();
    }
  });

  it('refuses a server whose certificate another CA signed, saying so', async () => {
    const e = await refusal({ sslmode: 'verify-full', ca: pem['other-ca.crt']! });
    expect(e).toBeInstanceOf(TeamTlsError);
    expect(e!.message).toMatch(/the server's certificate is not signed by the CA you gave/);
    // At the lock screen, the operator reads the same, and where to look.
    const unlocker = new TeamUnlocker({
      databaseUrl: urlNoPassword,
      tls: { sslmode: 'verify-full', ca: pem['other-ca.crt']! },
      login: LOGIN,
      remembered: new MemoryAppSecret(),
      onSignIn: () => undefined,
    });
    await expect(unlocker.verify(PASSWORD)).rejects.toThrow(
      /not signed by the CA you gave.*Check the TLS settings of the team connection/,
    );
    // verify-ca checks the same chain.
    expect((await refusal({ sslmode: 'verify-ca', ca: pem['other-ca.crt']! }))!.message).toMatch(
      /not signed by the CA you gave/,
    );
  });

  it('refuses a server that offers no TLS, saying so', async () => {
    const s = plain.server;
    const e = await refusal(verifyFull(), serverUrl(s, plain.name));
    expect(e).toBeInstanceOf(TeamTlsError);
    expect(e!.message).toMatch(/the server does not offer TLS/);
  });

  it('a server that takes TLS only says so to a desk set to disable', async () => {
    const e = await refusal({ sslmode: 'disable', ca: null });
    expect(e).toBeInstanceOf(TeamTlsError);
    expect(e!.message).toMatch(/accepts this connection only over TLS/);
  });

  it('the command line connects with --sslmode verify-full --ssl-ca, and refuses another CA with the same words', async () => {
    const env = { PGPASSWORD: PASSWORD };
    const ok = await runCli(
      [
        'team',
        'operators',
        'list',
        '--database',
        urlNoPassword,
        '--sslmode',
        'verify-full',
        '--ssl-ca',
        path.join(certs, 'team-ca.crt'),
      ],
      { env },
    );
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain(LOGIN);
    const wrong = await runCli(
      ['team', 'operators', 'list', '--database', urlNoPassword, '--ssl-ca', path.join(certs, 'other-ca.crt')],
      { env },
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/the server's certificate is not signed by the CA you gave/);
  }, 60_000);

  it('connect --profile team --ssl-ca keeps the CA with the profile and signs in over TLS with --remember', async () => {
    const dataDir = tempDir('md-tls-connect-');
    const { publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const servicePem = path.join(dataDir, 'service.pem');
    fs.writeFileSync(servicePem, publicKey.export({ type: 'spki', format: 'pem' }));
    const r = await runCli(
      [
        '--data-dir',
        dataDir,
        'connect',
        '--profile',
        'team',
        '--base-url',
        'https://api.example.invalid',
        '--public-key',
        'pk_test_tls',
        '--service-key',
        servicePem,
        '--secret-key-stdin',
        '--no-verify',
        '--database',
        urlNoPassword,
        '--login',
        LOGIN,
        '--remember',
        '--sslmode',
        'verify-full',
        '--ssl-ca',
        path.join(certs, 'team-ca.crt'),
      ],
      { stdin: `sk_test_tls\n${PASSWORD}\n`, env: { MERCHANT_DESK_KEYCHAIN_SERVICE: `md-tls-test-${process.pid}` } },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`signed in as ${LOGIN}`);
    const db = openProfileDatabase(dataDir, 'team');
    try {
      expect(loadSettings(db)).toMatchObject({ teamSslMode: 'verify-full', teamSslCa: pem['team-ca.crt'] });
    } finally {
      db.close();
    }
  }, 60_000);

  it("a desk set up in Settings (the CA chosen in main's dialog) signs in and syncs over TLS; Settings refuse a key for a CA and CA text from the window", async () => {
    const dataDir = tempDir('md-tls-desk-');
    const db = openProfileDatabase(dataDir, 'team');
    try {
      updateSettings(db, {
        profile: 'team',
        baseUrl: 'https://api.example.invalid',
        teamDatabaseUrl: urlNoPassword,
        teamLogin: LOGIN,
      });
    } finally {
      db.close();
    }
    writeActiveProfile(dataDir, 'team');
    let core = await composeCore({ dataDir, logger: silentLogger(), receiver: false, lock: { checkEveryMs: 0 } });
    try {
      const chosen: string[] = [];
      let file = path.join(certs, 'db.key');
      core.chooseOpenPath = async (o) => {
        chosen.push(o.title);
        return file;
      };
      let d = typedInvoke(createDispatcher(buildHandlers(core), core.logger));
      expect(await d('settings.setTeamCa', {})).toMatchObject({
        ok: false,
        error: { field: 'teamSslCa', message: expect.stringMatching(/private key/) },
      });
      file = path.join(certs, 'team-ca.crt');
      const view = value(await d('settings.setTeamCa', {}));
      expect(chosen).toEqual(["The team database's CA certificate", "The team database's CA certificate"]);
      expect(view.teamSslCa).toMatchObject({
        subject: 'CN=team-ca',
        fingerprintSha256: expect.stringMatching(/^[0-9A-F:]+$/),
      });
      // A CA given on loopback means: check the server with it.
      expect(view.teamTransport).toEqual({ mode: 'verify-full', warning: null, warningWords: null });
      // Where main has a dialog, whom the desk trusts is never text from the window.
      expect(await d('settings.setTeamCa', { pem: pem['other-ca.crt']! })).toMatchObject({
        ok: false,
        error: { field: 'teamSslCa', message: expect.stringMatching(/choose the CA certificate in the dialog/) },
      });
      expect(
        await d('settings.update', { teamDatabaseUrl: `${urlNoPassword}?password=${encodeURIComponent(PASSWORD)}` }),
      ).toMatchObject({
        ok: false,
        error: { field: 'teamDatabaseUrl', message: expect.stringMatching(/a password may not be given in the URL/) },
      });

      // As the desk starts next time: locked, then the operator signs in; the pool and LISTEN run over TLS.
      await core.close();
      core = await composeCore({ dataDir, logger: silentLogger(), receiver: false, lock: { checkEveryMs: 0 } });
      d = typedInvoke(createDispatcher(buildHandlers(core), core.logger));
      await core.lock.unlock(PASSWORD);
      expect(core.team()).toMatchObject({ login: LOGIN });
      const admin = openTeamPool(serverUrl(server, 'postgres'), { tls: verifyFull() });
      try {
        for (const end = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 100))) {
          const r = await admin.query<{ application_name: string; ssl: boolean }>(
            `SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.usename = $1`,
            [LOGIN],
          );
          if (r.rows.some((x) => x.application_name === 'merchant-desk listen')) {
            expect(r.rows.every((x) => x.ssl)).toBe(true);
            break;
          }
          if (Date.now() > end) throw new Error(`the desk's LISTEN connection did not come: ${JSON.stringify(r.rows)}`);
        }
      } finally {
        await admin.end();
      }
      expect(core.appStatus().team).toMatchObject({ signedIn: true, transportWarning: null });
    } finally {
      await core.close();
    }
  }, 60_000);

  // Last: it changes the server's certificate.
  it('refuses a certificate for another host name, saying whose it is; verify-ca and require do not check the name', async () => {
    await serve('wrong-name', 'db.wrong.example');
    const e = await refusal(verifyFull());
    expect(e).toBeInstanceOf(TeamTlsError);
    expect(e!.message).toMatch(/the server's certificate is for db\.wrong\.example, not for 127\.0\.0\.1/);

    for (const t of [
      { sslmode: 'verify-ca', ca: pem['team-ca.crt']! },
      { sslmode: 'require', ca: null },
    ] as TeamTls[]) {
      const pool = openTeamPool(url, { tls: t });
      try {
        expect(await sslOf(pool)).toBe(true);
      } finally {
        await pool.end();
      }
    }
  }, 30_000);
});
