// End to end: the real CLI (npx tsx main/cli/main.ts) against a started sandbox over loopback HTTP,
// with the real keychain. Run: bash scripts/with-keyring.sh npx vitest run test/cli
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { createServiceClient } from '../../main/service/client.js';
import { formatMinor } from '../../main/money/index.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { recordBalanceRun } from '../../main/store/sqlite/balances.js';
import { openProfileDatabase, writeActiveProfile } from '../../main/settings/profile-database.js';
import { updateSettings } from '../../main/settings/settings.js';
import { takeGlobalOptions } from '../../main/cli/index.js';

/** The CLI with this test's data folder: before the command, or (dataDirLast) after its own options. */
function cli(
  dataDir: string,
  args: string[],
  opts: { stdin?: string; env?: NodeJS.ProcessEnv; dataDirLast?: boolean } = {},
): Promise<CliRun> {
  const argv = opts.dataDirLast ? [...args, '--data-dir', dataDir] : ['--data-dir', dataDir, ...args];
  return runCli(argv, opts);
}

let sb: Sandbox;
let sandboxDir: string;
beforeAll(async () => {
  sandboxDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'md-cli-sandbox-'));
  sb = await startSandbox({ stateDir: sandboxDir });
});
afterAll(async () => {
  await sb?.close();
  fs.rmSync(sandboxDir, { recursive: true, force: true });
});

function connectArgs(extra: string[] = []): string[] {
  return [
    'connect',
    '--profile',
    'sandbox',
    '--base-url',
    sb.baseUrl,
    '--public-key',
    sb.publicKey,
    '--service-key',
    sb.servicePublicKeyPath,
    '--secret-key-stdin',
    '--signing-key-stdin',
    ...extra,
  ];
}

describe('global options', () => {
  it('--data-dir is taken before or after the command, in either spelling, and never after a bare --', () => {
    expect(takeGlobalOptions(['--data-dir', 'D', 'start', '--headless'])).toEqual({
      args: ['start', '--headless'],
      dataDir: 'D',
    });
    expect(takeGlobalOptions(['start', '--data-dir', 'D', '--headless'])).toEqual({
      args: ['start', '--headless'],
      dataDir: 'D',
    });
    expect(takeGlobalOptions(['balances', '--json', '--data-dir=D'])).toEqual({
      args: ['balances', '--json'],
      dataDir: 'D',
    });
    expect(takeGlobalOptions(['start'])).toEqual({ args: ['start'] });
    expect(takeGlobalOptions(['x', '--', '--data-dir', 'D'])).toEqual({ args: ['x', '--', '--data-dir', 'D'] });
    expect(() => takeGlobalOptions(['start', '--data-dir'])).toThrow(/--data-dir needs a folder/);
    expect(() => takeGlobalOptions(['start', '--data-dir', '--headless'])).toThrow(/--data-dir needs a folder/);
  });
});

describe('merchant-desk CLI against the sandbox', () => {
  it('balances right after connect shows the wallets connect fetched; --data-dir also works after the command', async () => {
    const dir = tempDir();
    const c = await cli(dir, connectArgs(), { stdin: `${sb.secretKey}\n${sb.signingKey}\n`, dataDirLast: true });
    expect(c.stderr).toBe('');
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/verified: the service answered with 8 wallets; cached/);
    const b = await cli(dir, ['balances'], { dataDirLast: true });
    expect(b.code).toBe(0);
    expect(b.stdout).not.toContain('nothing cached yet');
    const bj = await cli(dir, ['balances', '--json']);
    const j = JSON.parse(bj.stdout) as { stale: boolean; balances: unknown[] };
    expect(j.stale).toBe(false);
    expect(j.balances).toHaveLength(8);
  });

  it('connect, poll --once, balances and providers; a failing service shows cached data as stale; no key in any file', async () => {
    const dir = tempDir();
    const c = await cli(dir, connectArgs(), { stdin: `${sb.secretKey}\n${sb.signingKey}\n` });
    expect(c.stderr).toBe('');
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/saved the sandbox connection to http:\/\/127\.0\.0\.1:\d+/);
    expect(c.stdout).toMatch(/service public key: RSA 4096 bits, SHA-256 ([0-9a-f]{2}:){31}[0-9a-f]{2}/);
    expect(c.stdout).toMatch(/verified: the service answered with 8 wallets/);
    expect(c.stdout).not.toContain(sb.publicKey);

    const p = await cli(dir, ['poll', '--once']);
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/^balances: ok at \d{4}-\d\d-\d\dT/m);
    expect(p.stdout).toMatch(/^providers: ok at /m);

    // What the CLI shows is what the service says.
    const client = createServiceClient({
      baseUrl: sb.baseUrl,
      keys: () => ({ publicKey: sb.publicKey, secretKey: sb.secretKey }),
    });
    const live = await client.getBalances();
    const bj = await cli(dir, ['balances', '--json']);
    expect(bj.code).toBe(0);
    const balances = JSON.parse(bj.stdout) as {
      as_of: string;
      stale: boolean;
      balances: { currency: string; wallet_type: string; available_balance: string; actual_balance: string }[];
    };
    expect(balances.stale).toBe(false);
    expect(balances.balances).toHaveLength(live.length);
    for (const w of live) {
      expect(balances.balances).toContainEqual(
        expect.objectContaining({
          currency: w.currency,
          wallet_type: w.walletType,
          available_balance: formatMinor(w.availableMinor, w.currency),
          actual_balance: formatMinor(w.actualMinor, w.currency),
        }),
      );
    }
    const ugx = await cli(dir, ['balances', '--currency', 'ugx']);
    expect(ugx.stdout).toMatch(/^as of \d{4}-/);
    expect(ugx.stdout).toMatch(/UGX\s+MERCHANT_COLLECTION/);
    expect(ugx.stdout).not.toMatch(/KES/);
    expect(ugx.stdout).not.toMatch(/STALE/);

    const pj = await cli(dir, ['providers', '--currency', 'UGX', '--type', 'COLLECTION', '--json']);
    const providers = JSON.parse(pj.stdout) as {
      payment_providers: { provider_code: string; transaction_currency: string; transaction_method: string }[];
    };
    expect(providers.payment_providers.length).toBeGreaterThan(1);
    expect(providers.payment_providers.every((o) => o.transaction_currency === 'UGX')).toBe(true);
    expect(providers.payment_providers.map((o) => o.transaction_method)).toContain('CARD');
    const pt = await cli(dir, ['providers', '--method', 'CARD']);
    expect(pt.stdout).toMatch(/CARD_UGX/);
    expect(pt.stdout).not.toMatch(/MOBILE_MONEY/);

    // The service goes down: poll fails with a readable error, the cache is kept and marked stale.
    sb.controls.addFault({ route: 'balances', kind: '503', times: 0 });
    try {
      const down = await cli(dir, ['poll', '--once', '--balances']);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/balances poll failed \(unavailable\)/);
      const stale = await cli(dir, ['balances', '--json']);
      const sj = JSON.parse(stale.stdout) as typeof balances & { last_error: { kind: string } };
      expect(sj.stale).toBe(true);
      expect(sj.last_error.kind).toBe('unavailable');
      expect(sj.balances).toEqual(balances.balances);
      expect((await cli(dir, ['balances'])).stdout).toMatch(/STALE: the last poll at .* failed \(unavailable\)/);
    } finally {
      sb.controls.clearFaults();
    }
    const back = await cli(dir, ['poll', '--once', '--balances']);
    expect(back.code).toBe(0);
    expect((JSON.parse((await cli(dir, ['balances', '--json'])).stdout) as { stale: boolean }).stale).toBe(false);

    for (const f of walk(dir)) {
      const bytes = fs.readFileSync(f);
      for (const key of [sb.secretKey, sb.signingKey, sb.publicKey]) {
        expect(bytes.includes(Buffer.from(key)), `a key found in ${path.relative(dir, f)}`).toBe(false);
      }
    }
    expect(walk(dir).some((f) => f.endsWith('merchant-desk.log'))).toBe(true);
  }, 90_000); // seven CLI processes, each started through tsx: slow on a busy machine, not a timing check

  it("reads the active profile's database: an old single-file folder is adopted, connect switches, and each profile keeps its own data", async () => {
    // A data folder from before profiles had their own databases, with a balance only it has seen.
    const dir = tempDir();
    const old = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
    const now = Date.now();
    recordBalanceRun(old, {
      startedAt: now,
      finishedAt: now,
      result: {
        ok: true,
        value: [
          {
            currency: 'EUR',
            walletType: 'MERCHANT_COLLECTION',
            availableMinor: 700,
            actualMinor: 700,
            unclearedMinor: 0,
            reserveMinor: 0,
          },
        ],
      },
    });
    old.close();
    type Out = { balances: { currency: string }[] };
    const currencies = async () =>
      (JSON.parse((await cli(dir, ['balances', '--json'])).stdout) as Out).balances.map((b) => b.currency);
    expect(await currencies()).toEqual(['EUR']);
    expect(fs.existsSync(path.join(dir, 'merchant-desk.sqlite'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'profiles', 'embedded', 'merchant-desk.sqlite'))).toBe(true);

    const c = await cli(dir, connectArgs(['--no-verify']), { stdin: `${sb.secretKey}\n${sb.signingKey}\n` });
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/the active profile is now sandbox/);
    expect(await currencies()).toEqual([]); // the sandbox profile has polled nothing yet
    expect((await cli(dir, ['poll', '--once', '--balances'])).code).toBe(0);
    const sandboxCurrencies = await currencies();
    expect(sandboxCurrencies.length).toBeGreaterThan(0);
    expect(sandboxCurrencies).not.toContain('EUR');

    writeActiveProfile(dir, 'embedded');
    expect(await currencies()).toEqual(['EUR']);
    const p = await cli(dir, ['poll', '--once']);
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/uses the embedded profile/);
    writeActiveProfile(dir, 'sandbox');
    expect(await currencies()).toEqual(sandboxCurrencies);
  }, 90_000); // CLI processes started through tsx, as above

  it('says what to fix for bad input and stores nothing', async () => {
    const dir = tempDir();
    const r1 = await cli(dir, ['connect', '--profile', 'sandbox', '--secret-key', 'sk_in_args']);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/keys are never taken from arguments.*--secret-key-stdin/);

    const priv = path.join(dir, 'priv.pem');
    fs.writeFileSync(
      priv,
      (await import('node:crypto'))
        .generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    const args = connectArgs();
    args[args.indexOf('--service-key') + 1] = priv;
    const r2 = await cli(dir, args, { stdin: `${sb.secretKey}\n${sb.signingKey}\n` });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/--service-key: .*private key/);

    const r3 = await cli(dir, connectArgs(), { stdin: `${sb.secretKey}\n` });
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(
      /expected the secret key and the signing key on standard input, one per line; got 1 line/,
    );

    const bad = connectArgs();
    bad[bad.indexOf('--base-url') + 1] = 'ftp://example.com';
    const r4 = await cli(dir, bad, { stdin: 'a\nb\n' });
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/--base-url: must be an http\(s\) URL/);

    const r5 = await cli(dir, ['balances', '--currency', 'shillings']);
    expect(r5.code).toBe(2);
    expect(r5.stderr).toMatch(/--currency must be a 3-letter currency code/);

    const r6 = await cli(dir, ['poll']);
    expect(r6.code).toBe(2);
    expect(r6.stderr).toMatch(/pass --once/);

    // Nothing was saved by the refused connects: still the default (embedded) profile.
    const r7 = await cli(dir, ['poll', '--once']);
    expect(r7.code).toBe(1);
    expect(r7.stderr).toMatch(/embedded profile/);
  }, 90_000); // CLI processes started through tsx, as above

  it('refuses to store keys when the keychain is unavailable', async () => {
    const dir = tempDir();
    const r = await cli(dir, connectArgs(), {
      stdin: `${sb.secretKey}\n${sb.signingKey}\n`,
      env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(dir, 'no-bus')}` },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/OS keychain is not available, so keys cannot be stored safely/);
    expect(r.stderr).toMatch(/Nothing was saved/);
    for (const f of walk(dir)) {
      expect(fs.readFileSync(f).includes(Buffer.from(sb.secretKey))).toBe(false);
    }
    const poll = await cli(dir, ['poll', '--once']);
    expect(poll.stderr).toMatch(/embedded profile/); // the profile was not switched
  });
});

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

describe('merchant-desk import-callbacks on a team profile', () => {
  it('is refused, naming where team imports happen, and stores nothing', async () => {
    const dataDir = tempDir('md-cli-team-import-');
    const db = openProfileDatabase(dataDir, 'team');
    updateSettings(db, {
      profile: 'team',
      baseUrl: sb.baseUrl,
      teamDatabaseUrl: 'postgres://127.0.0.1:5432/team',
      teamLogin: 'sam',
    });
    db.close();
    writeActiveProfile(dataDir, 'team');
    const file = path.join(dataDir, 'in.jsonl');
    fs.writeFileSync(file, '{"headers": {}, "body": {}}\n');
    const r = await cli(dataDir, ['import-callbacks', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('this data folder uses the team profile: callbacks are imported in the app');
    const after = openProfileDatabase(dataDir, 'team');
    try {
      expect(after.prepare('SELECT COUNT(*) FROM collection_events').pluck().get()).toBe(0);
    } finally {
      after.close();
    }
  });
});
