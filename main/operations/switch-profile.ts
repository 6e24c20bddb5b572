// Switching profile, or the team connection a team desk signs in to, in one place (issue 28). Settings (the
// IPC handlers in ipc/handlers/settings.ts) is a thin adapter over it; `merchant-desk connect --profile`
// records the active profile in the data folder, which a running app follows (app/profile-switch.ts).
//
// Another profile is another workspace (its own database, settings and keys): the desk closes one and opens
// the other, nothing lost. A team desk's session belongs to one database, one login and one way of reaching
// it (sslmode, CA): changing any of them ends the session at once, and the desk starts again on its local
// copy, locked until the operator named now signs in. The team database decides nothing here; the other
// desks see nothing of it (the operator's sign-in is their own).
import type { Clock } from '../clock.js';
import { english, nest, words, type Words } from '../words/words.shared.js';
import type { Db } from '../store/sqlite/connection.js';
import { updateSettings, type Profile, type Settings, type SettingsPatch } from '../settings/index.js';

export interface SwitchProfileDeps {
  db: Db;
  clock: Clock;
  /** Tells the person at the desk (given by whoever composes the operation: it knows no event bus). */
  notify(notice: { level: 'info' | 'warning' | 'error'; message: string; words?: Words }): void;
  settings(): Settings;
  /** Closes the running workspace and opens `profile`'s, with `patch` saved to it first. */
  switchProfile(profile: Profile, patch: SettingsPatch): Promise<void>;
  /** Starts the running workspace again on the same database (a team desk: locked until sign-in). */
  reopenWorkspace(): Promise<void>;
}

/** A change a running team session cannot take: another database, login or TLS setting. */
function teamConnectionChanged(was: Settings, next: Settings): boolean {
  return (
    next.profile === 'team' &&
    (next.teamDatabaseUrl !== was.teamDatabaseUrl ||
      next.teamLogin !== was.teamLogin ||
      next.teamSslMode !== was.teamSslMode ||
      next.teamSslCa !== was.teamSslCa)
  );
}

/**
 * Saves a settings change: to another profile's workspace when it names another profile (switched to), else
 * to this one's, ending a team session whose connection it changes. `why` says what changed, for the notice
 * (default: "The team connection changed"). Returns the settings before and after (this profile's; after a
 * switch, the new profile's).
 */
export async function saveSettingsChange(
  deps: SwitchProfileDeps,
  patch: SettingsPatch,
  why?: Words,
): Promise<{ was: Settings; next: Settings; switched: boolean }> {
  const was = deps.settings();
  if (patch.profile !== undefined && patch.profile !== was.profile) {
    // The rest of the patch is for the new profile, except a base URL the form still shows from the old
    // one where it makes no sense.
    const { profile, ...rest } = patch;
    if (profile === 'embedded' || rest.baseUrl === null) delete rest.baseUrl;
    await deps.switchProfile(profile, rest);
    return { was, next: deps.settings(), switched: true };
  }
  const next = updateSettings(deps.db, patch, deps.clock);
  if (teamConnectionChanged(was, next)) {
    await deps.reopenWorkspace();
    const login = next.teamLogin;
    const w = why
      ? words(login ? 'app.notice.teamChangedWhy' : 'app.notice.teamChangedWhyNoLogin', {
          ...nest('why', why, english(why)),
          ...(login ? { login } : {}),
        })
      : login
        ? words('app.notice.teamChanged', { login })
        : words('app.notice.teamChangedNoLogin');
    deps.notify({ level: 'info', message: english(w), words: w });
  }
  return { was, next, switched: false };
}
