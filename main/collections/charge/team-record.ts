// On a team profile, every event a charge stores locally (initialize answer, redirect, window closed,
// UNKNOWN outcome) is also recorded to the team database. Both copies carry the same dedupe key, so
// when the team sync brings the event back to this desktop it is recognised and stored once.
import { withTeamKey } from '../event-key.js';
import type { EventWriter } from '../event-writer.js';
import type { TeamChargeSeam } from './types.js';

// The local copy names the operator (on a team desk its login) as the event's actor: the team copy's
// actor is the login PostgreSQL records, so both say the same.
export function recordedToTeam(
  local: EventWriter,
  team: () => TeamChargeSeam | null,
  operator: () => string,
): EventWriter {
  return {
    append(ev) {
      const t = team();
      if (!t) return local.append(ev);
      const keyed = { ...withTeamKey(ev), actor: operator() };
      t.record(keyed);
      return local.append(keyed);
    },
    waiting: () => local.waiting(),
    dispose: () => local.dispose(),
  };
}
