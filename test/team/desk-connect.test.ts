// `merchant-desk connect --profile team`: the service connection as for sandbox/live, plus the team
// database (a URL with a password in it is refused) and the operator's login; --remember signs in once
// and keeps only a password the database accepted. Real PostgreSQL, real keychain, real sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { captureIo } from '../support/cli-here.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { connectCommand } from '../../main/cli/commands/connect.js';
import { UsageError } from '../../main/cli/command.js';
import { openProfileDatabase, loadSettings, readActiveProfile } from '../../main/settings/index.js';
import { KeyringAppSecret, KeyringSecretStore } from '../../main/secrets/index.js';
import { rememberedPasswordName } from '../../main/team/unlocker.js';
import { fileTempDir, tempDir } from '../support/tmp.js';
import { teamFixture, type TeamFixture } from './fixture.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-deskconnect-${process.pid}`;

let team: TeamFixture;
let sb: Sandbox;
let sandboxDir: string;
let pem: string;
let dbUrl: string;
const remembered: string[] = [];

beforeAll(async () => {
  team = await teamFixture();
  sandboxDir = fileTempDir('md-deskconnect-sbx-');
  sb = await startSandbox({ stateDir: sandboxDir, timeScale: 1000 });
  pem = path.join(sandboxDir, 'service.pem');
  fs.writeFileSync(pem, sb.servicePublicKeyPem);
  dbUrl = `postgres://${team.db.server.host}:${team.db.server.port}/${team.db.name}`;
}, 120_000);

afterAll(async () => {
  const keys = new KeyringSecretStore('team');
  for (const name of ['public-key', 'secret-key', 'signing-key'] as const) await keys.delete(name).catch(() => {});
  await keys.bindOrigin(null).catch(() => {});
  for (const name of remembered) await new KeyringAppSecret(name).delete().catch(() => {});
  await sb?.close();
  await team?.close();
});

async function connect(dataDir: string, args: string[], stdin: string) {
  const t = captureIo(stdin);
  const code = await connectCommand.run(
    [
      '--profile',
      'team',
      '--base-url',
      sb.baseUrl,
      '--public-key',
      sb.publicKey,
      '--service-key',
      pem,
      '--secret-key-stdin',
      '--no-verify',
      ...args,
    ],
    { dataDir, env: process.env, io: t.io },
  );
  return { code, out: t.out(), err: t.err() };
}

describe('connect --profile team', () => {
  it('refuses a database URL with a password in it, saying where the password goes instead', async () => {
    const dataDir = tempDir();
    const login = await team.addOperator('support');
    const withPassword = dbUrl.replace('postgres://', `postgres://${login}:secret@`);
    await expect(connect(dataDir, ['--database', withPassword, '--login', login], `${sb.secretKey}\n`)).rejects.toThrow(
      new UsageError(
        '--database: a password may not be given in the URL (it would show in the process list and wherever the URL is kept); each operator signs in with their own password, which is kept only in the OS keychain (and only when they ask to be remembered)',
      ),
    );
    await expect(connect(dataDir, ['--database', dbUrl], `${sb.secretKey}\n`)).rejects.toThrow(/--login is required/);
  });

  it('saves the team profile; --remember keeps a password the database accepts, and only that', async () => {
    const login = await team.addOperator('support');
    remembered.push(rememberedPasswordName(dbUrl, login));
    const secret = new KeyringAppSecret(rememberedPasswordName(dbUrl, login));

    const wrong = await connect(
      tempDir(),
      ['--database', dbUrl, '--login', login, '--remember'],
      `${sb.secretKey}\nnot-the-password\n`,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`the team database refused the password for ${login}; nothing was remembered`);
    expect(await secret.get()).toBeNull();

    const dataDir = tempDir();
    const ok = await connect(
      dataDir,
      ['--database', dbUrl, '--login', login, '--remember'],
      `${sb.secretKey}\n${team.password(login)}\n`,
    );
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`signed in as ${login}; the password is remembered in the OS keychain`);
    expect(await secret.get()).toBe(team.password(login));
    expect(readActiveProfile(dataDir)).toBe('team');
    const db = openProfileDatabase(dataDir, 'team');
    try {
      expect(loadSettings(db)).toMatchObject({
        profile: 'team',
        baseUrl: sb.baseUrl,
        teamDatabaseUrl: dbUrl,
        teamLogin: login,
      });
    } finally {
      db.close();
    }
  });
});
