// What `merchant-desk connect` is asked to save, from its flags, checked before anything is stored: each
// refusal is a usage error naming the flag to fix.
import fs from 'node:fs';
import { parseCommandArgs, UsageError } from '../command.js';
import { inspectServicePublicKey } from '../../settings/service-key.js';
import { SettingsError, validateSettings, type Settings } from '../../settings/settings.js';
import { checkSecretValue, SecretValueError } from '../../secrets/secret-store.js';
import type { TeamTls } from '../../team/tls.js';
import { TLS_OPTIONS, tlsFromFlags } from '../team-tls.js';

const CONNECT_FLAGS = {
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
} as const;

/** A connection to save: a service profile's, and for a team desk its database and operator. */
export interface ConnectRequest {
  profile: 'sandbox' | 'live' | 'team';
  /** The base URL, trimmed. */
  baseUrl: string;
  /** The merchant account public key as given (checked by checkPublicKey). */
  publicKey: string;
  /** The service public key's PEM file. */
  serviceKeyFile: string;
  /** A signing key follows the secret key on standard input. */
  signingKey: boolean;
  noVerify: boolean;
  /** The team profile's database, operator and TLS; null for sandbox and live. */
  team: {
    settings: { teamDatabaseUrl: string; teamLogin: string; teamSslMode: TeamTls['sslmode']; teamSslCa: string | null };
    tls: TeamTls;
    /** Sign in once now and keep the password in the keychain (it follows the keys on standard input). */
    remember: boolean;
  } | null;
}

/** The request in connect's flags; refuses keys given as arguments, a profile it cannot save, a missing flag. */
export function connectRequest(args: string[]): ConnectRequest {
  for (const a of args) {
    if (/^--(secret|signing)-key(=|$)/.test(a)) {
      throw new UsageError(
        `keys are never taken from arguments (they end up in shell history); use ${a.split('=')[0]}-stdin and pipe the key in`,
      );
    }
  }
  const { values } = parseCommandArgs({ args, options: CONNECT_FLAGS, strict: true, allowPositionals: false });
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
  if (!values['base-url']) throw new UsageError('--base-url is required, e.g. --base-url https://api.example.com');
  if (!values['public-key']) throw new UsageError('--public-key is required (the merchant account public key)');
  if (!values['service-key']) throw new UsageError('--service-key is required: the service public key PEM file');
  if (!values['secret-key-stdin']) {
    throw new UsageError(
      '--secret-key-stdin is required: pipe the secret key in on standard input (it is never taken from arguments)',
    );
  }
  return {
    profile,
    baseUrl: values['base-url'].trim(),
    publicKey: values['public-key'],
    serviceKeyFile: values['service-key'],
    signingKey: values['signing-key-stdin'],
    noVerify: values['no-verify'],
    team: isTeam
      ? {
          settings: {
            teamDatabaseUrl: values.database!.trim(),
            teamLogin: values.login!.trim(),
            teamSslMode: tls!.sslmode,
            teamSslCa: tls!.ca,
          },
          tls: tls!,
          remember: values.remember,
        }
      : null,
  };
}

/** Refuses settings the profile could not hold with these (`current`: the profile's) and a service key that is not one. */
export function checkSettings(current: Settings, r: ConnectRequest): void {
  try {
    validateSettings({ ...current, profile: r.profile, baseUrl: r.baseUrl, ...r.team?.settings });
    inspectServicePublicKey(readPem(r.serviceKeyFile));
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(`${flagFor(e.field)}: ${e.reason}`);
    throw e;
  }
}

/** The merchant account public key, checked. */
export function checkPublicKey(given: string): string {
  try {
    return checkSecretValue('public-key', given);
  } catch (e) {
    if (e instanceof SecretValueError) throw new UsageError(`--public-key ${e.message.replace(/^public-key: /, '')}`);
    throw e;
  }
}

/** A PEM file's text; a file larger than any public key PEM (64 KiB, as Settings takes) is not read. */
function readPem(file: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new UsageError(`--service-key: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!st.isFile()) throw new UsageError(`--service-key: ${file} is not a file`);
  if (st.size > 64 * 1024) throw new UsageError(`--service-key: ${file} is too large to be a public key PEM`);
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
