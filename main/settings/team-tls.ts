// The team profile's TLS settings: the mode and the CA certificate's PEM, kept with the profile (the
// file it came from may move; the desk must not notice). The PEM is read here, in main, from a file the
// user chose in main's own dialog, or as text the window read from a file input; never from a path the
// window names.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { TeamTls } from '../team/tls.js';
import type { Settings } from './settings.js';
import { SettingsError } from './settings.js';

const MAX_CA_BYTES = 65536;

/** The TLS settings a team desk connects with. */
export function teamTlsOf(s: Pick<Settings, 'teamSslMode' | 'teamSslCa'>): TeamTls {
  return { sslmode: s.teamSslMode, ca: s.teamSslCa };
}

/** What Settings shows of the CA certificate (the first one in the PEM): who it is, its fingerprint, until when. */
export function teamCaInfo(pem: string): { subject: string; fingerprintSha256: string; validTo: string } | null {
  try {
    const c = new crypto.X509Certificate(pem);
    return {
      subject: c.subject.replace(/\n/g, ', '),
      fingerprintSha256: c.fingerprint256,
      validTo: new Date(c.validTo).toISOString(),
    };
  } catch {
    return null;
  }
}

/** The PEM text of a CA certificate file the user chose in main's dialog. */
export function readTeamCaFile(file: string): string {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_CA_BYTES)
      throw new SettingsError('teamSslCa', `${file} is too large to be a CA certificate`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof SettingsError) throw e;
    throw new SettingsError('teamSslCa', `cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return text;
}
