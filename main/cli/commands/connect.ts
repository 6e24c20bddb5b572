// merchant-desk connect: saves a sandbox, live or team connection (base URL, public key, service key PEM)
// and the secret and signing keys, which are read from standard input, never from arguments. Keys go only
// to the OS keychain; if it is unavailable, nothing is stored. A team desk also names the team database
// (never with a password in it) and the operator who signs in; --remember signs in once now and keeps
// that operator's password in the keychain so the app signs in by itself, and checks that notifications
// from the team database reach this desk (a warning naming the fix when they do not).
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { dataPaths } from '../../settings/paths.js';
import { adoptLegacyDatabase, openProfileDatabase, writeActiveProfile } from '../../settings/profile-database.js';
import { importServicePublicKeyFile, inspectServicePublicKey } from '../../settings/service-key.js';
import { loadSettings, SettingsError, updateSettings, validateSettings } from '../../settings/settings.js';
import { loadConnection } from '../../settings/connection.js';
import { storeKeyFor } from '../../settings/key-binding.js';
import {
  checkSecretValue,
  KeyringSecretStore,
  maskKey,
  SecretValueError,
  type SecretName,
} from '../../secrets/secret-store.js';
import { createLogger } from '../../log/logger.js';
import { recordBalanceRun } from '../../store/sqlite/balances.js';
import { systemClock } from '../../clock.js';
import fs from 'node:fs';
import { transportOf } from '../../team/tls.js';
import { TLS_OPTIONS, TLS_USAGE, tlsFromFlags } from '../team-tls.js';
import { notificationsExplained, PULL_WITHOUT_NOTIFICATIONS_MS } from '../../team/notify-words.shared.js';

const USAGE =
  'merchant-desk [--data-dir DIR] connect --profile sandbox|live|team --base-url URL --public-key KEY --service-key FILE.pem ' +
  `--secret-key-stdin [--signing-key-stdin] [--database postgres://HOST:PORT/DB --login NAME [--remember] ${TLS_USAGE}] [--no-verify]   ` +
  '(keys, then with --remember the team password, on standard input, one per line, in that order)';

/** Reads `n` lines from a stream (the rest is left unread). Fewer lines at end of input is an error. */
export async function readLines(stream: NodeJS.ReadableStream, n: number, what: string[]): Promise<string[]> {
  if (n === 0) return [];
  return new Promise<string[]>((resolve, reject) => {
    let buf = '';
    const finish = (err?: Error) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.pause();
      if (err) return reject(err);
      resolve(buf.split(/\r?\n/).slice(0, n));
    };
    const onData = (chunk: Buffer | string) => {
      buf += chunk.toString();
      if (buf.split(/\r?\n/).length > n) finish();
      else if (buf.length > 64 * 1024) finish(new UsageError('standard input is too long to hold keys'));
    };
    const onEnd = () => {
      const lines = buf.split(/\r?\n/);
      if (lines.length >= n && lines.slice(0, n).every((l) => l.length > 0)) return finish();
      const got = lines.filter((l) => l.length > 0).length;
      finish(
        new UsageError(
          `expected ${what.join(' and ')} on standard input, one per line; got ${got} line${got === 1 ? '' : 's'}`,
        ),
      );
    };
    const onError = (e: Error) => finish(e);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

/** Reads one line from a terminal without echoing it (keys typed by hand must not show on screen). */
export function promptHidden(stdin: NodeJS.ReadStream, stderr: NodeJS.WritableStream, label: string): Promise<string> {
  stderr.write(`${label} (input hidden): `);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = () => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003' || ch === '\u0004') {
          done();
          return reject(new UsageError('cancelled; nothing was saved'));
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}

export const connectCommand: Command = {
  name: 'connect',
  summary: 'save a sandbox or live connection; secret and signing keys are read from standard input',
  usage: USAGE,
  async run(args, ctx) {
    for (const a of args) {
      if (/^--(secret|signing)-key(=|$)/.test(a)) {
        throw new UsageError(
          `keys are never taken from arguments (they end up in shell history); use ${a.split('=')[0]}-stdin and pipe the key in`,
        );
      }
    }
    const { values } = parseCommandArgs({
      args,
      options: {
        profile: { type: 'string' },
        'base-url': { type: 'string' },
        'public-key': { type: 'string' },
        'service-key': { type: 'string' },
        'secret-key-stdin': { type: 'boolean', default: false },
        'signing-key-stdin': { type: 'boolean', default: false },
        'no-verify': { type: 'boolean', default: false },
        database: { type: 'string' },
        login: { type: 'string' },
        remember: { type: 'boolean', default: false },
        ...TLS_OPTIONS,
      },
      strict: true,
      allowPositionals: false,
    });
    const profile = values.profile;
    if (profile !== 'sandbox' && profile !== 'live' && profile !== 'team') {
      throw new UsageError(
        profile === 'embedded'
          ? 'the embedded profile needs no connect: it is the default when nothing is configured (merchant-desk start)'
          : '--profile must be sandbox, live or team',
      );
    }
    const isTeam = profile === 'team';
    if (isTeam && !values.database)
      throw new UsageError(
        '--database is required for the team profile, e.g. --database postgres://db.example.com:5432/merchant',
      );
    if (isTeam && !values.login)
      throw new UsageError('--login is required for the team profile: the operator who signs in on this desktop');
    if (!isTeam && (values.database || values.login || values.remember || values.sslmode || values['ssl-ca']))
      throw new UsageError('--database, --login, --remember, --sslmode and --ssl-ca are for the team profile only');
    // The CA's PEM is stored with the profile (the file may move or go; the desk must not notice).
    const tls = isTeam ? tlsFromFlags(values.sslmode, values['ssl-ca']) : null;
    const teamSettings = isTeam
      ? {
          teamDatabaseUrl: values.database!.trim(),
          teamLogin: values.login!.trim(),
          teamSslMode: tls!.sslmode,
          teamSslCa: tls!.ca,
        }
      : {};
    if (!values['base-url']) throw new UsageError('--base-url is required, e.g. --base-url https://api.example.com');
    if (!values['public-key']) throw new UsageError('--public-key is required (the merchant account public key)');
    if (!values['service-key']) throw new UsageError('--service-key is required: the service public key PEM file');
    if (!values['secret-key-stdin']) {
      throw new UsageError(
        '--secret-key-stdin is required: pipe the secret key in on standard input (it is never taken from arguments)',
      );
    }

    // Check everything before storing anything. The profile is a workspace of its own (its database,
    // settings and data); connecting to it makes it the active one.
    const adopted = fs.existsSync(dataPaths(ctx.dataDir).legacyDb)
      ? adoptLegacyDatabase(ctx.dataDir, createLogger({ dataDir: ctx.dataDir }))
      : null;
    if (adopted)
      ctx.io.stderr.write(
        `merchant-desk: moved the single-file database to ${adopted.to} (the ${adopted.profile} profile's)\n`,
      );
    const db = openProfileDatabase(ctx.dataDir, profile);
    try {
      const current = loadSettings(db);
      try {
        validateSettings({ ...current, profile, baseUrl: values['base-url'].trim(), ...teamSettings });
        inspectServicePublicKey(readPem(values['service-key']));
      } catch (e) {
        if (e instanceof SettingsError) throw new UsageError(`${flagFor(e.field)}: ${e.reason}`);
        throw e;
      }
      let publicKey: string;
      try {
        publicKey = checkSecretValue('public-key', values['public-key']);
      } catch (e) {
        if (e instanceof SecretValueError)
          throw new UsageError(`--public-key ${e.message.replace(/^public-key: /, '')}`);
        throw e;
      }
      const names: SecretName[] = ['secret-key', ...(values['signing-key-stdin'] ? (['signing-key'] as const) : [])];
      const stdin = ctx.io.stdin as NodeJS.ReadStream;
      const lines: string[] = [];
      const labels = [...names.map((n) => n.replace('-', ' ')), ...(values.remember ? ['team password'] : [])];
      if (stdin.isTTY) {
        for (const l of labels) lines.push(await promptHidden(stdin, ctx.io.stderr, l));
      } else {
        lines.push(
          ...(await readLines(
            stdin,
            labels.length,
            labels.map((l) => `the ${l}`),
          )),
        );
      }
      const teamPassword = values.remember ? (lines[names.length] ?? '') : null;
      if (teamPassword !== null && teamPassword.length === 0)
        throw new UsageError('the team password on standard input is empty');
      const secrets: [SecretName, string][] = [];
      for (const [i, name] of names.entries()) {
        try {
          secrets.push([name, checkSecretValue(name, lines[i] ?? '')]);
        } catch (e) {
          if (e instanceof SecretValueError)
            throw new UsageError(
              `the ${name.replace('-', ' ')} on standard input (line ${i + 1}) ${e.message.replace(/^[a-z-]+: /, '')}`,
            );
          throw e;
        }
      }

      const store = new KeyringSecretStore(profile);
      const probe = await store.probe();
      if (!probe.available) {
        ctx.io.stderr.write(
          `merchant-desk: ${probe.reason}\nNothing was saved: keys are only ever stored in the OS keychain.\n`,
        );
        return 1;
      }
      // The keys are for this base URL's host only (main/settings/key-binding.ts).
      const baseUrl = values['base-url'].trim();
      await storeKeyFor(store, baseUrl, 'public-key', publicKey);
      for (const [name, value] of secrets) await storeKeyFor(store, baseUrl, name, value);
      if (!values['signing-key-stdin']) await store.delete('signing-key');
      // The base URL first: the profile's settings must be valid as a whole at every write.
      updateSettings(db, { profile, baseUrl: values['base-url'].trim(), ...teamSettings });
      const keyInfo = importServicePublicKeyFile(db, ctx.dataDir, values['service-key']);
      writeActiveProfile(ctx.dataDir, profile);

      ctx.io.stdout.write(
        `saved the ${profile} connection to ${values['base-url'].trim()} (public key ${maskKey(publicKey)}; ` +
          `secret key${values['signing-key-stdin'] ? ' and signing key' : ''} in the OS keychain)\n` +
          `service public key: RSA ${keyInfo.bits} bits, SHA-256 ${keyInfo.fingerprintSha256}\n` +
          `the active profile is now ${profile} (its own database: ${dataPaths(ctx.dataDir, profile).db})\n`,
      );
      if (!values['signing-key-stdin']) {
        ctx.io.stdout.write(
          'note: no signing key was given; callbacks and redirects can then only be verified by their RSA signature\n',
        );
      }
      const warning = isTeam ? transportOf(values.database!.trim(), tls!, ctx.env).warning : null;
      if (warning) ctx.io.stderr.write(`merchant-desk: warning: ${warning}\n`);
      if (isTeam && teamPassword !== null) {
        // Sign in once now: only a password the team database accepts is remembered. Loaded here, so
        // every other command starts without the PostgreSQL client.
        const { teamDatabaseUrl, teamLogin } = teamSettings as { teamDatabaseUrl: string; teamLogin: string };
        const { rememberedPasswordName, TeamUnlocker } = await import('../../team/unlocker.js');
        const { KeyringAppSecret } = await import('../../secrets/app-secret.js');
        const { proveNotifications } = await import('../../team/sync/notify-probe.js');
        // Signed in, the desk also checks that notifications reach it (a transaction-mode pool drops them).
        let notifications: boolean | null = null;
        const unlocker = new TeamUnlocker({
          databaseUrl: teamDatabaseUrl,
          tls: tls!,
          login: teamLogin,
          remembered: new KeyringAppSecret(rememberedPasswordName(teamDatabaseUrl, teamLogin)),
          onSignIn: async (pool) => {
            notifications = await proveNotifications(pool).catch(() => null);
            await pool.end();
          },
        });
        let ok: boolean;
        try {
          ok = await unlocker.verify(teamPassword, { remember: true });
        } catch (e) {
          ctx.io.stderr.write(`merchant-desk: saved, but the password was not remembered: ${(e as Error).message}\n`);
          return 1;
        }
        if (!ok) {
          ctx.io.stderr.write(
            `merchant-desk: saved, but the team database refused the password for ${teamLogin}; nothing was remembered\n`,
          );
          return 1;
        }
        ctx.io.stdout.write(`signed in as ${teamLogin}; the password is remembered in the OS keychain\n`);
        // A warning, not a refusal: the desk works through such a pool, catching up every second instead of at once.
        const n = { arriving: notifications, checkedAt: null, pullEveryMs: PULL_WITHOUT_NOTIFICATIONS_MS };
        if (notifications === false) ctx.io.stderr.write(`merchant-desk: warning: ${notificationsExplained(n)}\n`);
        else if (notifications === true) ctx.io.stdout.write(`${notificationsExplained(n)}\n`);
      } else if (isTeam) {
        ctx.io.stdout.write(`the app will ask ${teamSettings.teamLogin} to sign in when it starts\n`);
      }
      if (values['no-verify']) return 0;

      const logger = createLogger({ dataDir: ctx.dataDir });
      const conn = await loadConnection({ db, secrets: store, logger });
      if (!conn.ok) {
        ctx.io.stderr.write(`merchant-desk: saved, but cannot connect: ${conn.error.message}\n`);
        return 1;
      }
      try {
        const startedAt = systemClock.now();
        const balances = await conn.client.getBalances();
        // The answer is real data: keep it as the poller would, so `merchant-desk balances` right after
        // shows it instead of "nothing cached yet".
        const stored = recordBalanceRun(db, {
          startedAt,
          finishedAt: systemClock.now(),
          result: { ok: true, value: balances },
        });
        ctx.io.stdout.write(
          `verified: the service answered with ${balances.length} wallet${balances.length === 1 ? '' : 's'}` +
            `${stored.error ? ` (not cached: ${stored.error.message})` : '; cached (merchant-desk balances shows them)'}\n`,
        );
        return 0;
      } catch (e) {
        ctx.io.stderr.write(
          `merchant-desk: saved, but the service did not accept the connection: ${(e as Error).message}\n` +
            'Check the base URL and keys, then run connect again (or use --no-verify to skip this check).\n',
        );
        return 1;
      }
    } finally {
      db.close();
    }
  },
};

function readPem(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--service-key: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function flagFor(field: string): string {
  if (field === 'baseUrl') return '--base-url';
  if (field === 'servicePublicKey') return '--service-key';
  if (field === 'profile') return '--profile';
  if (field === 'teamDatabaseUrl') return '--database';
  if (field === 'teamLogin') return '--login';
  if (field === 'teamSslMode') return '--sslmode';
  if (field === 'teamSslCa') return '--ssl-ca';
  return field;
}
