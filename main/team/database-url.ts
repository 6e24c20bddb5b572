// The team database's URL as a person gives it (a --database flag, Settings, serve's environment):
// postgres://LOGIN@HOST:PORT/DATABASE and nothing else. No imports beyond errors.ts, so settings can use
// it without loading the PostgreSQL client. The TLS settings' names and checks are here for the same reason.
import { X509Certificate } from 'node:crypto';
import { TeamFieldError } from './errors.js';

/** Checks a connection URL and returns its parts; refuses anything but postgres:// or postgresql://. */
export function parseDatabaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TeamFieldError('database URL', 'is not a URL; expected postgres://LOGIN@HOST:PORT/DATABASE');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new TeamFieldError('database URL', `must start with postgres:// (got ${parsed.protocol}//)`);
  }
  if (!parsed.pathname || parsed.pathname === '/') {
    throw new TeamFieldError('database URL', 'names no database; expected postgres://LOGIN@HOST:PORT/DATABASE');
  }
  return parsed;
}

/**
 * Why a URL a person typed may not be used, or null. A password in it (in the user part or as
 * ?password=) or a password file (?passfile=) would show in the process list, shell history, systemd's
 * unit and the settings file; TLS is set apart (--sslmode, --ssl-ca, Settings) so that a URL cannot
 * quietly weaken it; anything else in the query is not read, so it is refused rather than ignored.
 * `instead` says where the password goes instead (e.g. "use PGPASSWORD or the prompt").
 */
export function givenDatabaseUrlProblem(text: string, instead: string): string | null {
  let u: URL;
  try {
    u = parseDatabaseUrl(text.trim());
  } catch (e) {
    return (e as TeamFieldError).message.replace(/^database URL: /, '');
  }
  const keys = [...u.searchParams.keys()].map((k) => k.toLowerCase());
  if (u.password || keys.includes('password'))
    return `a password may not be given in the URL (it would show in the process list and wherever the URL is kept); ${instead}`;
  if (keys.includes('passfile')) return `a password file may not be named in the URL (?passfile=); ${instead}`;
  const tls = keys.find((k) => k.startsWith('ssl'));
  if (tls)
    return `?${tls}= is not read from the URL; give the TLS mode and CA certificate on their own (--sslmode, --ssl-ca or Settings, Connection)`;
  if (keys.length) return `?${keys[0]}= is not supported; give postgres://LOGIN@HOST:PORT/DATABASE with no query`;
  if (u.search || u.hash) return 'must not have a query or fragment; give postgres://LOGIN@HOST:PORT/DATABASE';
  return null;
}

/** A URL a person gave, checked (givenDatabaseUrlProblem); throws a TeamFieldError naming `field`. */
export function parseGivenDatabaseUrl(text: string, field: string, instead: string): URL {
  const problem = givenDatabaseUrlProblem(text, instead);
  if (problem) throw new TeamFieldError(field, problem);
  return parseDatabaseUrl(text.trim());
}

/** How the connection to the team database is protected (libpq's names). */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export function isSslMode(s: unknown): s is SslMode {
  return typeof s === 'string' && (SSL_MODES as readonly string[]).includes(s);
}

/** Why `pem` is not a CA certificate to check the server with, or null. */
export function caCertificateProblem(pem: string): string | null {
  if (/PRIVATE KEY-----/.test(pem)) return 'holds a private key; give only the CA certificate (never a key)';
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) return 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)';
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch {
      return 'holds a certificate that cannot be read';
    }
  }
  return null;
}

/** A mode that checks the server's certificate needs to know whom to trust: verify-ca only the CA given. */
export function tlsSettingsProblem(
  sslmode: SslMode | null,
  ca: string | null,
): { field: 'sslmode' | 'ca'; message: string } | null {
  if (ca !== null) {
    const p = caCertificateProblem(ca);
    if (p) return { field: 'ca', message: p };
  }
  if (sslmode === 'verify-ca' && ca === null)
    return {
      field: 'ca',
      message:
        'is required with verify-ca: without the CA that signed the server certificate, any certificate a public CA signed for anyone would pass',
    };
  return null;
}
