// Opening a team desk while the team database cannot be reached. PostgreSQL is what checks an
// operator's password; when it is down, the lock screen would otherwise keep the operator out of the
// desk's own local copy for the whole outage. So after every sign-in PostgreSQL accepted, the desk keeps
// a slow salted hash of that password (scrypt, as the solo lock passphrase) and the role it had, in the
// OS keychain. Offline, a password matching it opens the local copy with that role; nothing can be
// written anyway (charges, resolutions and imports need the database), and the first connection that
// PostgreSQL refuses (password changed, operator disabled) locks the desk again.
import { hashPassphrase, verifyPassphrase } from '../lock/passphrase-hash.js';
import type { AppSecret } from '../secrets/index.js';
import { parseDatabaseUrl } from './pool.js';
import { isTeamRole, type TeamRole } from './roles.shared.js';

/** The keychain name of the offline check: one per login and database. */
export function offlineCheckName(databaseUrl: string, login: string): string {
  const u = parseDatabaseUrl(databaseUrl);
  return `team-offline-check:${login}@${u.host}${u.pathname}`;
}

/** Keeps the check of a password PostgreSQL has just accepted, with the role it signed in as. */
export async function keepOfflineCheck(store: AppSecret, password: string, role: TeamRole): Promise<void> {
  await store.set(`${role} ${await hashPassphrase(password)}`);
}

export type OfflineCheck = { ok: true; role: TeamRole } | { ok: false; reason: 'none' | 'mismatch' };

/** Whether `password` is the one last accepted at this desk; the role it had then. */
export async function checkOffline(store: AppSecret, password: string): Promise<OfflineCheck> {
  const stored = await store.get().catch(() => null);
  const space = stored?.indexOf(' ') ?? -1;
  if (!stored || space < 0) return { ok: false, reason: 'none' };
  const role = stored.slice(0, space);
  if (!isTeamRole(role)) return { ok: false, reason: 'none' };
  try {
    return (await verifyPassphrase(password, stored.slice(space + 1)))
      ? { ok: true, role }
      : { ok: false, reason: 'mismatch' };
  } catch {
    return { ok: false, reason: 'none' };
  }
}
