// Who this desk records as doing something (a charge, a resolution): the one place it is decided.
// On a team desk its login, which PostgreSQL records as every event's actor (session_user, DESIGN.md
// "Trust boundaries"), so the desk's own copy says the same before the pulled copy arrives; on a solo desk
// the operator name of Settings. Empty: nobody is named (a solo desk whose name was cleared).

/** The actor this desk's own events carry. */
export function deskActor(o: { teamLogin: string | null; operatorName: string }): string {
  return (o.teamLogin ?? o.operatorName).trim();
}
