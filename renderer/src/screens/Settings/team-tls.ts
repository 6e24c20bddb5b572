// The Settings choices for TLS to the team database, in words: what each mode checks. Main decides
// what a mode does (main/team/tls.ts); this only names the choices and reads the select back.
import type { MessageId } from '../../../../main/words/words.shared.js';
import { TEAM_SSL_MODES, type TeamSslMode } from '../../../../main/ipc/contract/settings.js';

export interface SslModeChoice {
  /** '' stands for "by host" (null in the settings). */
  value: '' | TeamSslMode;
  /** Its words in the catalogue. */
  label: MessageId;
}

export const SSL_MODE_CHOICES: readonly SslModeChoice[] = [
  { value: '', label: 'settings.ssl.byHost' },
  { value: 'verify-full', label: 'settings.ssl.verify-full' },
  { value: 'verify-ca', label: 'settings.ssl.verify-ca' },
  { value: 'require', label: 'settings.ssl.require' },
  { value: 'disable', label: 'settings.ssl.disable' },
];

/** The setting for what the select shows. */
export function sslModeSetting(value: string): TeamSslMode | null {
  return (TEAM_SSL_MODES as readonly string[]).includes(value) ? (value as TeamSslMode) : null;
}
