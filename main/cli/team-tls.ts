// The TLS flags every command that reaches the team database takes (connect --profile team, serve,
// team ...): --sslmode disable|require|verify-ca|verify-full and --ssl-ca FILE (the CA's PEM). What each
// mode checks, and the default by host, is team/tls.ts's; this only reads the flags.
import fs from 'node:fs';
import { UsageError } from './command.js';
import { SSL_MODES, isSslMode, tlsSettingsProblem } from '../team/database-url.js';
import type { TeamTls } from '../team/tls.js';

export const TLS_OPTIONS = {
  sslmode: { type: 'string' },
  'ssl-ca': { type: 'string' },
} as const;

export const TLS_USAGE = `[--sslmode ${SSL_MODES.join('|')}] [--ssl-ca CA.pem]`;

/** The TLS settings from --sslmode and --ssl-ca (or what stands for them, e.g. serve's environment). */
export function tlsFromFlags(
  sslmode: string | undefined,
  caFile: string | undefined,
  names = { sslmode: '--sslmode', ca: '--ssl-ca' },
): TeamTls {
  if (sslmode !== undefined && !isSslMode(sslmode))
    throw new UsageError(`${names.sslmode} must be one of ${SSL_MODES.join(', ')} (got ${JSON.stringify(sslmode)})`);
  const mode = sslmode ?? null;
  if (caFile !== undefined && (mode === 'disable' || mode === 'require'))
    throw new UsageError(
      `${names.ca} is only used to check the server's certificate, which ${names.sslmode} ${mode} does not; use verify-full (or verify-ca)`,
    );
  let ca: string | null = null;
  if (caFile !== undefined) {
    try {
      ca = fs.readFileSync(caFile, 'utf8');
    } catch (e) {
      throw new UsageError(`${names.ca}: cannot read ${caFile} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const problem = tlsSettingsProblem(mode, ca);
  if (problem?.field === 'ca')
    throw new UsageError(
      caFile === undefined ? `${names.ca} ${problem.message}` : `${names.ca}: ${caFile} ${problem.message}`,
    );
  return { sslmode: mode, ca };
}
