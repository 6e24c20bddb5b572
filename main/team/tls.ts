// The one place that turns a team database URL and its TLS settings into node-postgres' connection
// config: the desk's pool, its LISTEN connection, serve and every CLI command connect through it, so
// they agree on what each sslmode checks. The default follows the host: a loopback host (127.0.0.0/8,
// ::1, localhost, a Unix socket) is reached as before, in plain text, unless a CA is given; any other
// host with verify-full.
// Weaker than that off loopback only when chosen, and then with a warning at every start.
import tls from 'node:tls';
import { english, words, type Words } from '../words/words.shared.js';
import { isLoopbackHost } from '../service/loopback.js';
import { TeamFieldError } from './errors.js';
import { parseDatabaseUrl, tlsSettingsProblem, type SslMode } from './database-url.js';

export { SSL_MODES, isSslMode, type SslMode } from './database-url.js';

/** The TLS settings of a team connection, as given (a flag, the profile). */
export interface TeamTls {
  /** null: by host (loopback without a CA: plain, as always; any other host, or a CA given: verify-full). */
  sslmode: SslMode | null;
  /** PEM of the CA that signed the server's certificate; null: Node's public CAs. */
  ca: string | null;
}

export const DEFAULT_TLS: TeamTls = { sslmode: null, ca: null };

/** What a connection will do, for the start-up log and the status bar. */
export interface Transport {
  /** The host connected to (a socket folder for a Unix socket). */
  host: string;
  loopback: boolean;
  /** The mode in effect (the default resolved). */
  mode: SslMode;
  /** Whether the mode was chosen rather than the default. */
  explicit: boolean;
  /** Set when the network path is not protected: logged at every start and shown in the status bar. */
  warning: string | null;
  warningWords: Words | null;
}

/** The host a URL reaches: its own, else PGHOST, else localhost (what node-postgres does). */
function hostOf(url: URL, env: NodeJS.ProcessEnv): string {
  const h = decodeURIComponent(url.hostname);
  return h || env.PGHOST || 'localhost';
}

export function transportOf(url: string | URL, t: TeamTls, env: NodeJS.ProcessEnv = process.env): Transport {
  const u = typeof url === 'string' ? parseDatabaseUrl(url) : url;
  const host = hostOf(u, env);
  const socket = host.startsWith('/');
  const loopback = socket || isLoopbackHost(host);
  const explicit = t.sslmode !== null;
  // PostgreSQL offers no TLS over a Unix socket (libpq ignores sslmode there too): the kernel carries it.
  // A CA given without a mode means: check the server with it.
  const mode: SslMode = socket ? 'disable' : (t.sslmode ?? (loopback && t.ca === null ? 'disable' : 'verify-full'));
  const warningWords =
    !loopback && mode === 'disable'
      ? words('team.tls.plainText', { host })
      : !loopback && mode === 'require'
        ? words('team.tls.unchecked', { host })
        : null;
  return { host, loopback, mode, explicit, warning: warningWords && english(warningWords), warningWords };
}

/** node-postgres' `ssl` option for a mode. */
function sslOption(mode: SslMode, ca: string | null): false | tls.ConnectionOptions {
  switch (mode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      // The chain up to the CA is checked; the name in the certificate is not.
      return { rejectUnauthorized: true, ...(ca ? { ca } : {}), checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, ...(ca ? { ca } : {}), checkServerIdentity: tls.checkServerIdentity };
  }
}

export interface PgConnectionConfig {
  connectionString: string;
  ssl: false | tls.ConnectionOptions;
}

/**
 * node-postgres' config for `url` (which may carry the sign-in password, in memory only) with `t`.
 * The `ssl` option is always set, so PGSSLMODE in the environment cannot weaken it, and a URL that
 * carries TLS settings of its own is refused (node-postgres would let them override these).
 */
export function pgConnectionConfig(url: string, t: TeamTls, env: NodeJS.ProcessEnv = process.env): PgConnectionConfig {
  const u = parseDatabaseUrl(url);
  const inUrl = [...u.searchParams.keys()].find((k) => /^ssl|^uselibpqcompat$/i.test(k));
  if (inUrl)
    throw new TeamFieldError('database URL', `?${inUrl}= is not read from the URL; give the TLS settings on their own`);
  const problem = tlsSettingsProblem(t.sslmode, t.ca);
  if (problem) throw new TeamFieldError(problem.field === 'ca' ? 'CA certificate' : 'sslmode', problem.message);
  const { mode } = transportOf(u, t, env);
  return { connectionString: url, ssl: sslOption(mode, t.ca) };
}
