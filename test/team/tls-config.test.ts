// What each TLS setting turns into (team/tls.ts), the default by host, and the refusal of a password (or
// anything else) in a database URL by every command and by Settings. No network here: a non-loopback
// host is only ever named, never connected to; the real TLS connections are in tls.test.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { pgConnectionConfig, transportOf, type TeamTls } from '../../main/team/tls.js';
import { givenDatabaseUrlProblem } from '../../main/team/database-url.js';
import { defaultSettings, SettingsError, validateSettings } from '../../main/settings/settings.js';
import { databaseUrl, refuseSecretsInArgv, ServeConfigError } from '../../main/serve/config.js';
import { tlsFromFlags } from '../../main/cli/team-tls.js';
import { UsageError } from '../../main/cli/command.js';
import { Writable } from 'node:stream';
import { runCli } from '../support/cli.js';
import { composeCore } from '../../main/app/core.js';
import { createLogger, silentLogger } from '../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { tempDir } from '../support/tmp.js';

const BY_HOST: TeamTls = { sslmode: null, ca: null };
// A self-signed certificate is a CA certificate as far as the PEM goes.
const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('the default follows the host', () => {
  it('a host other than this computer gets verify-full (the chain and the name checked) without a word from the user', () => {
    for (const host of ['db.example.com', '10.0.0.5', '[2001:db8::5]']) {
      const t = transportOf(`postgres://sam@${host}:5432/team`, BY_HOST, {});
      expect(t).toMatchObject({ loopback: false, mode: 'verify-full', explicit: false, warning: null });
      const c = pgConnectionConfig(`postgres://sam@${host}:5432/team`, BY_HOST, {});
      expect(c.ssl).toMatchObject({ rejectUnauthorized: true });
      expect((c.ssl as tls.ConnectionOptions).checkServerIdentity).toBe(tls.checkServerIdentity);
    }
  });

  it('PGSSLMODE in the environment does not weaken it (the ssl option is always set)', () => {
    const c = pgConnectionConfig('postgres://sam@db.example.com/team', BY_HOST, { PGSSLMODE: 'disable' });
    expect(c.ssl).toMatchObject({ rejectUnauthorized: true });
  });

  it('loopback and a Unix socket stay as they were (plain), unless a CA is given', () => {
    for (const url of [
      'postgres://sam@127.0.0.1:5432/team',
      'postgres://sam@127.4.5.6/team',
      'postgres://sam@localhost/team',
      'postgres://sam@[::1]:5432/team',
      'postgres://sam@%2Fvar%2Frun%2Fpostgresql/team',
    ]) {
      expect(transportOf(url, BY_HOST, {})).toMatchObject({ loopback: true, mode: 'disable', warning: null });
      expect(pgConnectionConfig(url, BY_HOST, {}).ssl).toBe(false);
    }
    // No host in the URL: PGHOST decides, as node-postgres does.
    expect(transportOf('postgres:///team', BY_HOST, { PGHOST: 'db.example.com' }).mode).toBe('verify-full');
    // A CA given means: check the server with it.
    expect(transportOf('postgres://sam@127.0.0.1/team', { sslmode: null, ca: 'PEM' }, {}).mode).toBe('verify-full');
  });

  it('maps each mode to what node-postgres checks', () => {
    const url = 'postgres://sam@db.example.com/team';
    expect(pgConnectionConfig(url, { sslmode: 'disable', ca: null }, {}).ssl).toBe(false);
    expect(pgConnectionConfig(url, { sslmode: 'require', ca: null }, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(() => pgConnectionConfig(url, { sslmode: 'verify-ca', ca: null }, {})).toThrow(
      /CA certificate: is required with verify-ca/,
    );
  });

  it('plain text or an unchecked certificate off loopback is allowed only when chosen, and then warned about', () => {
    const off = transportOf('postgres://sam@10.0.0.5/team', { sslmode: 'disable', ca: null }, {});
    expect(off).toMatchObject({ explicit: true, mode: 'disable' });
    expect(off.warning).toMatch(/10\.0\.0\.5 is reached in plain text/);
    expect(transportOf('postgres://sam@10.0.0.5/team', { sslmode: 'require', ca: null }, {}).warning).toMatch(
      /its certificate is not checked/,
    );
    expect(transportOf('postgres://sam@127.0.0.1/team', { sslmode: 'disable', ca: null }, {}).warning).toBeNull();
  });

  it('a URL that carries TLS settings of its own is refused rather than let them override', () => {
    expect(() => pgConnectionConfig('postgres://sam@db.example.com/team?sslmode=disable', BY_HOST, {})).toThrow(
      /\?sslmode= is not read from the URL/,
    );
  });
});

describe('a desk set to plain text for a host off this computer', () => {
  it('is chosen only with a yes in main, then warned about at every start, in the log and in the status bar', async () => {
    const dataDir = tempDir('md-tls-warn-');
    const db = openProfileDatabase(dataDir, 'team');
    try {
      // 192.0.2.0/24 is documentation only: the desk stays locked, so nothing is ever sent there.
      updateSettings(db, {
        profile: 'team',
        baseUrl: 'https://api.example.invalid',
        teamDatabaseUrl: 'postgres://192.0.2.10:5432/team',
        teamLogin: 'sam',
      });
    } finally {
      db.close();
    }
    writeActiveProfile(dataDir, 'team');
    {
      // Chosen in Settings: only with a yes in main's own dialog; the window alone cannot weaken it.
      const core = await composeCore({ dataDir, logger: silentLogger(), receiver: false, lock: { checkEveryMs: 0 } });
      try {
        const d = typedInvoke(createDispatcher(buildHandlers(core), core.logger));
        expect(await d('settings.get', {})).toMatchObject({
          value: { teamSslMode: null, teamTransport: { mode: 'verify-full', warning: null } },
        });
        expect(await d('settings.update', { teamSslMode: 'disable' })).toMatchObject({
          ok: false,
          error: { kind: 'confirm_required', field: 'teamSslMode', message: expect.stringMatching(/plain text/) },
        });
        const asked: string[] = [];
        core.confirm = async (o) => {
          asked.push(o.detail);
          return asked.length > 1;
        };
        expect(await d('settings.update', { teamSslMode: 'require' })).toMatchObject({ ok: false });
        expect(await d('settings.update', { teamSslMode: 'disable' })).toMatchObject({ ok: true });
        expect(asked[0]).toMatch(/its certificate is not checked/);
        expect(asked[1]).toMatch(/192\.0\.2\.10 is reached in plain text/);
      } finally {
        await core.close();
      }
    }
    for (let start = 0; start < 2; start++) {
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(chunk.toString());
          cb();
        },
      });
      const core = await composeCore({
        dataDir,
        logger: createLogger({ destination }),
        receiver: false,
        lock: { checkEveryMs: 0 },
      });
      try {
        const warned = lines.filter((l) => /192\.0\.2\.10 is reached in plain text/.test(l));
        expect(warned).toHaveLength(1);
        expect(JSON.parse(warned[0]!)).toMatchObject({ level: 40, sslmode: 'disable' });
        expect(core.appStatus().team?.transportWarning).toMatch(/192\.0\.2\.10 is reached in plain text/);
        const d = typedInvoke(createDispatcher(buildHandlers(core), core.logger));
        const view = await d('settings.get', {});
        expect(view).toMatchObject({
          ok: true,
          value: {
            teamSslMode: 'disable',
            teamTransport: { mode: 'disable', warning: expect.stringMatching(/plain text/) },
          },
        });
      } finally {
        await core.close();
      }
    }
  });
});

describe('no password in a database URL', () => {
  const instead = 'use PGPASSWORD';
  it('names what is wrong: a password, ?password=, ?passfile=, TLS in the URL, any other parameter', () => {
    expect(givenDatabaseUrlProblem('postgres://sam:hunter2@db/team', instead)).toMatch(
      /^a password may not be given in the URL .*; use PGPASSWORD$/,
    );
    expect(givenDatabaseUrlProblem('postgres://sam@db/team?password=hunter2', instead)).toMatch(/a password may not/);
    expect(givenDatabaseUrlProblem('postgres://sam@db/team?PassWord=hunter2', instead)).toMatch(/a password may not/);
    expect(givenDatabaseUrlProblem('postgres://sam@db/team?passfile=/home/sam/.pgpass', instead)).toMatch(
      /a password file may not be named in the URL \(\?passfile=\)/,
    );
    expect(givenDatabaseUrlProblem('postgres://sam@db/team?sslmode=disable', instead)).toMatch(
      /\?sslmode= is not read from the URL; give the TLS mode/,
    );
    expect(givenDatabaseUrlProblem('postgres://sam@db/team?application_name=x', instead)).toMatch(
      /\?application_name= is not supported/,
    );
    expect(givenDatabaseUrlProblem('postgres://sam@db:5432/team', instead)).toBeNull();
  });

  it('Settings refuse it on the team database URL, and a CA that is not a certificate', () => {
    const team = { ...defaultSettings(), profile: 'team', baseUrl: 'https://api.example.com', teamLogin: 'sam' };
    const fail = (over: Record<string, unknown>) => {
      try {
        validateSettings({ ...team, teamDatabaseUrl: 'postgres://db.example.com/team', ...over });
      } catch (e) {
        return e as SettingsError;
      }
      throw new Error('accepted');
    };
    expect(fail({ teamDatabaseUrl: 'postgres://sam@db.example.com/team?password=hunter2' })).toMatchObject({
      field: 'teamDatabaseUrl',
      reason: expect.stringMatching(/^a password may not be given in the URL/),
    });
    expect(fail({ teamDatabaseUrl: 'postgres://db.example.com/team?passfile=x' }).reason).toMatch(/password file/);
    expect(fail({ teamSslCa: KEY_PEM })).toMatchObject({
      field: 'teamSslCa',
      reason: expect.stringMatching(/private key/),
    });
    expect(fail({ teamSslCa: 'hello' }).reason).toMatch(/not a PEM certificate/);
    expect(fail({ teamSslMode: 'verify-ca' })).toMatchObject({
      field: 'teamSslCa',
      reason: expect.stringMatching(/is required with verify-ca/),
    });
    expect(fail({ teamSslMode: 'prefer' }).field).toBe('teamSslMode');
  });

  it('serve refuses it in --database and in MERCHANT_DESK_DATABASE_URL, saying where the password goes', () => {
    expect(() => refuseSecretsInArgv(['--database', 'postgres://rx@db/team?password=hunter2'])).toThrow(
      /--database: a password may not be given in the URL .*PGPASSWORD or the credential file database-password/,
    );
    const fromEnv = () =>
      databaseUrl(undefined, {
        env: { MERCHANT_DESK_DATABASE_URL: 'postgres://rx:hunter2@db/team' },
        credentialsDir: null,
      });
    expect(fromEnv).toThrow(ServeConfigError);
    expect(fromEnv).toThrow(/^MERCHANT_DESK_DATABASE_URL: a password may not be given in the URL/);
  });

  it('every command refuses it before connecting: connect, serve, team operators', async () => {
    const dataDir = tempDir();
    const url = 'postgres://sam@127.0.0.1:1/team?password=hunter2';
    const runs = await Promise.all([
      runCli(['--data-dir', dataDir, 'team', 'operators', 'list', '--database', url]),
      runCli([
        '--data-dir',
        dataDir,
        'team',
        'operators',
        'list',
        '--database',
        'postgres://sam@127.0.0.1:1/team?passfile=p',
      ]),
      runCli(['--data-dir', dataDir, 'serve', '--database', url, '--no-poll']),
      runCli([
        '--data-dir',
        dataDir,
        'connect',
        '--profile',
        'team',
        '--base-url',
        'https://api.example.com',
        '--public-key',
        'pk_test_123',
        '--service-key',
        'none.pem',
        '--secret-key-stdin',
        '--database',
        url,
        '--login',
        'sam',
      ]),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('hunter2');
    }
    expect(runs[0]!.stderr).toMatch(/--database: a password may not be given in the URL .*; give it in PGPASSWORD/);
    expect(runs[1]!.stderr).toMatch(/--database: a password file may not be named in the URL \(\?passfile=\)/);
    expect(runs[2]!.stderr).toMatch(/--database: a password may not be given in the URL .*database-password/);
    expect(runs[3]!.stderr).toMatch(/--database: a password may not be given in the URL/);
  }, 60_000);
});

describe('--sslmode and --ssl-ca', () => {
  it('names the flag and what is wrong', () => {
    expect(() => tlsFromFlags('prefer', undefined)).toThrow(
      new UsageError('--sslmode must be one of disable, require, verify-ca, verify-full (got "prefer")'),
    );
    expect(() => tlsFromFlags('verify-ca', undefined)).toThrow(/^--ssl-ca is required with verify-ca/);
    expect(() => tlsFromFlags('disable', '/nowhere/ca.pem')).toThrow(/--ssl-ca is only used to check/);
    expect(() => tlsFromFlags('verify-full', '/nowhere/ca.pem')).toThrow(
      '--ssl-ca: cannot read /nowhere/ca.pem (ENOENT)',
    );
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'key.pem'), KEY_PEM);
    expect(() => tlsFromFlags(undefined, path.join(dir, 'key.pem'))).toThrow(/holds a private key/);
    expect(tlsFromFlags(undefined, undefined)).toEqual({ sslmode: null, ca: null });
  });
});
