// `merchant-desk connect --profile team --remember`: signs in once now, so that only a password the team
// database accepts is remembered (in the OS keychain), and checks that notifications from the team
// database reach this desk (a transaction-mode pool drops them): a warning naming the fix when they do not.
// The team modules are loaded here, on use, so every other command starts without the PostgreSQL client.
import type { CliContext } from '../command.js';
import type { TeamTls } from '../../team/tls.js';
import { notificationsExplained, PULL_WITHOUT_NOTIFICATIONS_MS } from '../../team/notify-words.shared.js';
import { messageOf } from '../../errors.shared.js';

/** 0 when the password is remembered, 1 (said on stderr) when it is not. */
export async function rememberTeamPassword(
  ctx: CliContext,
  team: { teamDatabaseUrl: string; teamLogin: string; tls: TeamTls },
  password: string,
): Promise<0 | 1> {
  const { teamDatabaseUrl, teamLogin } = team;
  const { rememberedPasswordName, TeamUnlocker } = await import('../../team/unlocker.js');
  const { KeyringAppSecret } = await import('../../secrets/app-secret.js');
  const { proveNotifications } = await import('../../team/sync/notify-proof.js');
  // Signed in, the desk also checks that notifications reach it (a transaction-mode pool drops them).
  let notifications: boolean | null = null;
  const unlocker = new TeamUnlocker({
    databaseUrl: teamDatabaseUrl,
    tls: team.tls,
    login: teamLogin,
    remembered: new KeyringAppSecret(rememberedPasswordName(teamDatabaseUrl, teamLogin)),
    onSignIn: async (pool) => {
      notifications = await proveNotifications(pool).catch(() => null);
      await pool.end();
    },
  });
  let ok: boolean;
  try {
    ok = await unlocker.verify(password, { remember: true });
  } catch (e) {
    ctx.io.stderr.write(`merchant-desk: saved, but the password was not remembered: ${messageOf(e)}\n`);
    return 1;
  }
  if (!ok) {
    ctx.io.stderr.write(
      `merchant-desk: saved, but the team database refused the password for ${teamLogin}; nothing was remembered\n`,
    );
    return 1;
  }
  ctx.io.stdout.write(`signed in as ${teamLogin}; the password is remembered in the OS keychain\n`);
  // A warning, not a refusal: the desk works through such a pool, catching up every second instead of at once.
  const n = { arriving: notifications, checkedAt: null, pullEveryMs: PULL_WITHOUT_NOTIFICATIONS_MS };
  if (notifications === false) ctx.io.stderr.write(`merchant-desk: warning: ${notificationsExplained(n)}\n`);
  else if (notifications === true) ctx.io.stdout.write(`${notificationsExplained(n)}\n`);
  return 0;
}
