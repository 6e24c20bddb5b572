// What the signed-in operator's role lets them do at this desk (TEAM_ACTIONS in team/roles.shared.ts).
// A control a role may not use is not offered, and where it helps a line says who can. This is a
// courtesy to the person at the desk: PostgreSQL refuses what a role may not do whatever a screen shows.
import { roleMay, type TeamAction } from '../../main/team/roles.shared.js';
import { useAppStatusSelect } from './hooks.js';
import { useWords } from './words/index.js';

/**
 * Whether `action` is offered (no action: nothing to decide, so yes). A solo profile has no roles:
 * everything is, as before team mode. Until the team role is known (the desk is still signing in, behind
 * its lock screen) it is offered too, so a screen's state is never thrown away while the role is read.
 * The role is the status's, which main keeps to the one the team database holds now (team/standing.ts):
 * every control gated here follows an admin's change within moments, without signing in again.
 */
export function useMay(action: TeamAction | undefined): boolean {
  const role = useAppStatusSelect((s) => s?.team?.role);
  return role && action ? roleMay(role, action) : true;
}

/** The line saying who can, in place of a control this role is not offered. */
export function WhoMay({ action }: { action: TeamAction }) {
  const { t } = useWords();
  return (
    <p className="as-of who-may" data-testid="who-may">
      {t(`team.who.${action}`)}
    </p>
  );
}
