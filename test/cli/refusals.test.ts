// Issue 39, "a refused command still writes": every CLI command checks what it was given (its arguments,
// files, standard input, the profile it would work on) before it touches the data folder. After each
// refusal a data folder that did not exist still does not, and one that did is byte for byte as it was.
// The real CLI entry (runCli) in this process, a real SQLite file, the real keychain where connect reaches it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { openProfileDatabase, writeActiveProfile } from '../../main/settings/profile-database.js';
import { updateSettings } from '../../main/settings/settings.js';
import type { Profile } from '../../main/settings/settings.js';
import { tempDir } from '../support/tmp.js';
import { runCli as spawnCli } from '../support/cli.js';
import { runCliHere } from '../support/cli-here.js';
import { folderState } from '../support/folder-state.js';

/**
 * The CLI's entry in this process; with `env`, the real CLI in a process of its own (the keychain reads
 * its D-Bus address from the process's environment).
 */
async function cli(args: string[], stdin = '', env?: NodeJS.ProcessEnv) {
  const r = env ? await spawnCli(args, { stdin, env }) : await runCliHere(args, stdin);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** A data folder whose active profile is `profile` (sandbox: a base URL and nothing else set). */
function dataFolder(profile: Profile): string {
  const dir = tempDir('md-refusals-');
  const db = openProfileDatabase(dir, profile);
  if (profile === 'sandbox') updateSettings(db, { profile, baseUrl: 'https://sandbox.example.com' });
  if (profile === 'team')
    updateSettings(db, {
      profile,
      baseUrl: 'https://sandbox.example.com',
      teamDatabaseUrl: 'postgres://127.0.0.1:5432/team',
      teamLogin: 'sam',
    });
  db.close();
  writeActiveProfile(dir, profile);
  return dir;
}

// The files the commands are given, kept for the whole file (tempDir's go after each test).
const files = fs.mkdtempSync(path.join(os.tmpdir(), 'md-refusals-files-'));
afterAll(() => fs.rmSync(files, { recursive: true, force: true }));
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const SERVICE_KEY = path.join(files, 'service.pem');
fs.writeFileSync(SERVICE_KEY, publicKey.export({ type: 'spki', format: 'pem' }));
const PRIVATE_KEY = path.join(files, 'private.pem');
fs.writeFileSync(PRIVATE_KEY, privateKey.export({ type: 'pkcs8', format: 'pem' }));
const CALLBACKS = path.join(files, 'callbacks.jsonl');
fs.writeFileSync(CALLBACKS, '{"headers": {}, "body": {}}\n');

const connect = (...over: string[]) => {
  const args = [
    'connect',
    '--profile',
    'sandbox',
    '--base-url',
    'https://sandbox.example.com',
    '--public-key',
    'pk_test_refusals',
    '--service-key',
    SERVICE_KEY,
    '--secret-key-stdin',
    '--signing-key-stdin',
    '--no-verify',
  ];
  for (let i = 0; i < over.length; i += 2) {
    const at = args.indexOf(over[i]!);
    if (at < 0) args.push(over[i]!, over[i + 1]!);
    else args[at + 1] = over[i + 1]!;
  }
  return args;
};

interface Refusal {
  name: string;
  args: string[];
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  /** What the person is told (stderr). */
  says: RegExp;
}

const KEYS = 'sk_test_secret\nsigning_key_1\n';

/** Refusals that do not depend on what the data folder holds. */
const REFUSALS: Refusal[] = [
  { name: 'an unknown command', args: ['frobnicate'], says: /unknown command "frobnicate"/ },
  { name: 'start with a bad port', args: ['start', '--headless', '--cdp-port', '0'], says: /--cdp-port must be/ },
  {
    name: 'keys in arguments',
    args: ['connect', '--profile', 'sandbox', '--secret-key', 'sk'],
    says: /never taken from arguments/,
  },
  {
    name: 'connect to embedded',
    args: ['connect', '--profile', 'embedded'],
    says: /embedded profile needs no connect/,
  },
  { name: 'connect without a base URL', args: ['connect', '--profile', 'sandbox'], says: /--base-url is required/ },
  {
    name: 'connect to a bad base URL',
    args: connect('--base-url', 'ftp://example.com'),
    stdin: KEYS,
    says: /--base-url: must be an http\(s\) URL/,
  },
  {
    name: 'connect with a private key as the service key',
    args: connect('--service-key', PRIVATE_KEY),
    stdin: KEYS,
    says: /--service-key: .*private key/,
  },
  {
    name: 'connect with a missing key file',
    args: connect('--service-key', path.join(files, 'nope.pem')),
    stdin: KEYS,
    says: /--service-key: cannot read/,
  },
  {
    name: 'connect with a bad public key',
    args: connect('--public-key', 'pk with spaces'),
    stdin: KEYS,
    says: /--public-key contains spaces/,
  },
  {
    name: 'connect with one key line of two',
    args: connect(),
    stdin: 'sk_test_secret\n',
    says: /expected the secret key and the signing key on standard input/,
  },
  {
    name: 'connect with a key of spaces',
    args: connect(),
    stdin: 'sk test\nsigning\n',
    says: /the secret key on standard input \(line 1\) contains spaces/,
  },
  {
    name: 'connect to a team without a login',
    args: [...connect('--profile', 'team'), '--database', 'postgres://127.0.0.1:5432/team'],
    stdin: KEYS,
    says: /--login is required/,
  },
  {
    name: 'connect when the keychain is unavailable',
    args: connect(),
    stdin: KEYS,
    env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(files, 'no-bus')}` },
    says: /Nothing was saved/,
  },
  { name: 'balances with a bad currency', args: ['balances', '--currency', 'shillings'], says: /--currency must be/ },
  { name: 'providers with a bad option', args: ['providers', '--colour'], says: /Unknown option '--colour'/ },
  { name: 'poll without --once', args: ['poll'], says: /pass --once/ },
  { name: 'reconcile with a bad limit', args: ['reconcile', '--limit', '0'], says: /--limit must be a whole number/ },
  { name: 'export without --out', args: ['export', 'collections'], says: /--out FILE is required/ },
  {
    name: 'export balances without dates',
    args: ['export', 'balances', '--out', path.join(files, 'b.csv')],
    says: /--from: the balance report needs a start date/,
  },
  {
    name: 'export a range that ends before it starts',
    args: ['export', 'collections', '--from', '2026-11-05', '--to', '2026-11-01', '--out', path.join(files, 'c.csv')],
    says: /--to: must be after the start of the range/,
  },
  {
    name: 'export into a missing folder',
    args: ['export', 'collections', '--out', path.join(files, 'no', 'c.csv')],
    says: /--out: .*(folder|directory)/,
  },
  { name: 'import without a file', args: ['import-callbacks'], says: /give exactly one FILE/ },
  {
    name: 'import of a missing file',
    args: ['import-callbacks', path.join(files, 'nope.jsonl')],
    says: /cannot read .*no such file/,
  },
  { name: 'sandbox on a bad port', args: ['sandbox', '--port', '70000'], says: /--port must be a port number/ },
  { name: 'team with no subcommand', args: ['team'], says: /team/ },
  {
    name: 'serve with a password in the URL',
    args: ['serve', '--database', 'postgres://u:secret@127.0.0.1:5432/team'],
    says: /password/,
  },
];

/** Refusals that come from what the data folder holds (its profile), each with the folder it is given. */
const BY_PROFILE: (Refusal & { profile: Profile | 'new' })[] = [
  // The case: NEW/profiles/embedded/merchant-desk.sqlite was created, then "the sandbox has never run".
  {
    name: 'import on a new folder',
    profile: 'new',
    args: ['import-callbacks', CALLBACKS],
    says: /sandbox has never run/,
  },
  {
    name: 'import on an embedded folder whose sandbox never ran',
    profile: 'embedded',
    args: ['import-callbacks', CALLBACKS],
    says: /sandbox has never run/,
  },
  {
    name: 'import with no key to verify with',
    profile: 'sandbox',
    args: ['import-callbacks', CALLBACKS],
    says: /Neither the signing key nor the service public key is set, so no callback could be verified\. Run "merchant-desk connect" first/,
  },
  {
    name: 'import on a team profile',
    profile: 'team',
    args: ['import-callbacks', CALLBACKS],
    says: /uses the team profile/,
  },
  { name: 'poll on a new folder', profile: 'new', args: ['poll', '--once'], says: /embedded profile/ },
  { name: 'poll on an embedded folder', profile: 'embedded', args: ['poll', '--once'], says: /embedded profile/ },
  {
    name: 'connect with a bad key, over a saved profile',
    profile: 'sandbox',
    args: connect(),
    stdin: 'sk test\nsigning\n',
    says: /contains spaces/,
  },
];

describe('a refused command touches no data folder', () => {
  it.each(REFUSALS)('$name: a new data folder is not created', async (r) => {
    const dir = path.join(tempDir('md-refusals-new-'), 'NEW');
    const got = await cli(['--data-dir', dir, ...r.args], r.stdin, r.env);
    expect(got.code).not.toBe(0);
    expect(got.err).toMatch(r.says);
    expect(folderState(dir)).toBeNull();
  });

  it.each(REFUSALS)('$name: a data folder in use is byte for byte as it was', async (r) => {
    const dir = dataFolder('sandbox');
    const before = folderState(dir);
    const got = await cli(['--data-dir', dir, ...r.args], r.stdin, r.env);
    expect(got.code).not.toBe(0);
    expect(got.err).toMatch(r.says);
    expect(folderState(dir)).toEqual(before);
  });

  it.each(BY_PROFILE)('$name ($profile)', async (r) => {
    const dir = r.profile === 'new' ? path.join(tempDir('md-refusals-new-'), 'NEW') : dataFolder(r.profile);
    const before = folderState(dir);
    const got = await cli(['--data-dir', dir, ...r.args], r.stdin, r.env);
    expect(got.code).not.toBe(0);
    expect(got.err).toMatch(r.says);
    expect(folderState(dir)).toEqual(before);
  });
});
