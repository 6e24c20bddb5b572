// merchant-desk connect: saves a sandbox, live or team connection (base URL, public key, service key PEM)
// and the secret and signing keys, which are read from standard input, never from arguments. Keys go only
// to the OS keychain; if it is unavailable, nothing is stored. A team desk also names the team database
// (never with a password in it) and the operator who signs in; --remember signs in once now and keeps
// that operator's password in the keychain so the app signs in by itself, and checks that notifications
// from the team database reach this desk (a warning naming the fix when they do not).
import fs from 'node:fs';
import { UsageError, type CliContext, type Command } from '../command.js';
import { dataPaths } from '../../settings/paths.js';
import { adoptLegacyDatabase, openProfileDatabase, writeActiveProfile } from '../../settings/profile-database.js';
import { importServicePublicKeyFile } from '../../settings/service-key.js';
import { defaultSettings, loadSettings, updateSettings } from '../../settings/settings.js';
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
import type { Db } from '../../store/sqlite/connection.js';
import { systemClock } from '../../clock.js';
import { transportOf } from '../../team/tls.js';
import { TLS_USAGE } from '../team-tls.js';
import { promptHidden, readLines } from '../hidden-input.js';
import { checkPublicKey, checkSettings, connectRequest, type ConnectRequest } from './connect-flags.js';
import { rememberTeamPassword } from './connect-team.js';
import { messageOf } from '../../errors.shared.js';

const USAGE =
  'merchant-desk [--data-dir DIR] connect --profile sandbox|live|team --base-url URL --public-key KEY --service-key FILE.pem ' +
  `--secret-key-stdin [--signing-key-stdin] [--database postgres://HOST:PORT/DB --login NAME [--remember] ${TLS_USAGE}] [--no-verify]   ` +
  '(keys, then with --remember the team password, on standard input, one per line, in that order)';

/**
 * The keys (and with --remember the team password) from standard input, one per line in that order:
 * prompted for, hidden, on a terminal; each checked, a refusal naming its line.
 */
async function readKeys(
  ctx: CliContext,
  r: ConnectRequest,
): Promise<{ secrets: [SecretName, string][]; teamPassword: string | null }> {
  const names: SecretName[] = ['secret-key', ...(r.signingKey ? (['signing-key'] as const) : [])];
  const remember = r.team?.remember ?? false;
  const stdin = ctx.io.stdin as NodeJS.ReadStream;
  const lines: string[] = [];
  const labels = [...names.map((n) => n.replace('-', ' ')), ...(remember ? ['team password'] : [])];
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
  const teamPassword = remember ? (lines[names.length] ?? '') : null;
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
  return { secrets, teamPassword };
}

/**
 * Stores the keys in the OS keychain (for this base URL's host only: main/settings/key-binding.ts), then
 * the profile's settings and service key, and makes the profile the active one.
 */
async function save(
  ctx: CliContext,
  db: Db,
  store: KeyringSecretStore,
  r: ConnectRequest,
  publicKey: string,
  secrets: [SecretName, string][],
): Promise<void> {
  await storeKeyFor(store, r.baseUrl, 'public-key', publicKey);
  for (const [name, value] of secrets) await storeKeyFor(store, r.baseUrl, name, value);
  if (!r.signingKey) await store.delete('signing-key');
  // The base URL first: the profile's settings must be valid as a whole at every write.
  updateSettings(db, { profile: r.profile, baseUrl: r.baseUrl, ...r.team?.settings });
  const keyInfo = importServicePublicKeyFile(db, ctx.dataDir, r.serviceKeyFile);
  writeActiveProfile(ctx.dataDir, r.profile);

  ctx.io.stdout.write(
    `saved the ${r.profile} connection to ${r.baseUrl} (public key ${maskKey(publicKey)}; ` +
      `secret key${r.signingKey ? ' and signing key' : ''} in the OS keychain)\n` +
      `service public key: RSA ${keyInfo.bits} bits, SHA-256 ${keyInfo.fingerprintSha256}\n` +
      `the active profile is now ${r.profile} (its own database: ${dataPaths(ctx.dataDir, r.profile).db})\n`,
  );
  if (!r.signingKey) {
    ctx.io.stdout.write(
      'note: no signing key was given; callbacks and redirects can then only be verified by their RSA signature\n',
    );
  }
}

/** The OS keychain the keys will go to, or null (said on stderr) when it does not answer: nothing is saved then. */
async function keychainFor(ctx: CliContext, r: ConnectRequest): Promise<KeyringSecretStore | null> {
  const store = new KeyringSecretStore(r.profile);
  const probe = await store.probe();
  if (probe.available) return store;
  ctx.io.stderr.write(
    `merchant-desk: ${probe.reason}\nNothing was saved: keys are only ever stored in the OS keychain.\n`,
  );
  return null;
}

/** Asks the service for the balances with the saved connection, and caches them as the poller would. */
async function verifyByBalances(ctx: CliContext, db: Db, store: KeyringSecretStore): Promise<number> {
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
      `merchant-desk: saved, but the service did not accept the connection: ${messageOf(e)}\n` +
        'Check the base URL and keys, then run connect again (or use --no-verify to skip this check).\n',
    );
    return 1;
  }
}

export const connectCommand: Command = {
  name: 'connect',
  summary: 'save a sandbox or live connection; secret and signing keys are read from standard input',
  usage: USAGE,
  onFailure: 'the connection may be partly saved; run connect again',
  async run(args, ctx) {
    const r = connectRequest(args);
    // Everything the command was given (flags, the key file, the keys on standard input, the keychain they
    // go to) is checked before the data folder is touched: a refusal leaves it as it was, or not made.
    // The settings are checked as a new profile would hold them, and again below with what it holds.
    checkSettings(defaultSettings(), r);
    const publicKey = checkPublicKey(r.publicKey);
    const { secrets, teamPassword } = await readKeys(ctx, r);
    const store = await keychainFor(ctx, r);
    if (!store) return 1;
    // The profile is a workspace of its own (its database, settings and data); connecting to it makes
    // it the active one.
    const adopted = fs.existsSync(dataPaths(ctx.dataDir).legacyDb)
      ? adoptLegacyDatabase(ctx.dataDir, createLogger({ dataDir: ctx.dataDir }))
      : null;
    if (adopted)
      ctx.io.stderr.write(
        `merchant-desk: moved the single-file database to ${adopted.to} (the ${adopted.profile} profile's)\n`,
      );
    const db = openProfileDatabase(ctx.dataDir, r.profile);
    try {
      checkSettings(loadSettings(db), r);
      await save(ctx, db, store, r, publicKey, secrets);
      const team = r.team;
      const warning = team ? transportOf(team.settings.teamDatabaseUrl, team.tls, ctx.env).warning : null;
      if (warning) ctx.io.stderr.write(`merchant-desk: warning: ${warning}\n`);
      if (team && teamPassword !== null) {
        const remembered = await rememberTeamPassword(ctx, { ...team.settings, tls: team.tls }, teamPassword);
        if (remembered !== 0) return remembered;
      } else if (team) {
        ctx.io.stdout.write(`the app will ask ${team.settings.teamLogin} to sign in when it starts\n`);
      }
      if (r.noVerify) return 0;
      return await verifyByBalances(ctx, db, store);
    } finally {
      db.close();
    }
  },
};
