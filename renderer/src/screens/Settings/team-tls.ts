// The Settings choices for TLS to the team database, in words: what each mode checks. Main decides
// what a mode does (main/team/tls.ts); this only names the choices and reads the select back.
import { TEAM_SSL_MODES, type TeamSslMode } from '../../../../main/ipc/contract/settings.js';

export interface SslModeChoice {
  /** '' stands for "by host" (null in the settings). */
  value: '' | TeamSslMode;
  label: string;
}

export const SSL_MODE_CHOICES: readonly SslModeChoice[] = [
  { value: '', label: 'By host: this computer plain, any other verify-full (recommended)' },
  { value: 'verify-full', label: 'verify-full: encrypted, certificate and host name checked' },
  { value: 'verify-ca', label: 'verify-ca: encrypted, certificate checked against the CA, not the name' },
  { value: 'require', label: 'require: encrypted, certificate NOT checked' },
  { value: 'disable', label: 'disable: plain text (only on a trusted network)' },
];

/** The setting for what the select shows. */
export function sslModeSetting(value: string): TeamSslMode | null {
  return (TEAM_SSL_MODES as readonly string[]).includes(value) ? (value as TeamSslMode) : null;
}
