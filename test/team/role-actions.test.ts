// What a desk's screens offer each role (TEAM_ACTIONS in team/roles.shared.ts) is what PostgreSQL lets
// that role do: each action is tried for real by a login of each role, and allowed exactly when the
// screens offer it. A grant changed in a migration without the screens (or the reverse) fails here.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { TeamPermissionError } from '../../main/team/errors.js';
import { appendEvents } from '../../main/team/events.js';
import { createIntent } from '../../main/team/intents.js';
import { addOperator } from '../../main/operations/operators.js';
import { roleMay, TEAM_ACTIONS, type TeamAction, type TeamRole } from '../../main/team/roles.shared.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
const DESK_ROLES = ['support', 'finance', 'back_office', 'admin'] as const satisfies readonly TeamRole[];
const logins = new Map<TeamRole, string>();

beforeAll(async () => {
  team = await teamFixture();
  for (const role of DESK_ROLES) logins.set(role, await team.addOperator(role));
});
afterAll(async () => {
  await team?.close();
});

let n = 0;
/** Does the action as the signed-in login: true when stored, false when PostgreSQL refuses the role. */
const TRY: Record<TeamAction, (pool: pg.Pool) => Promise<unknown>> = {
  takePayments: (pool) =>
    createIntent(pool, { merchantReference: `MD-ACT-${++n}`, amountMinor: 5000, currency: 'NGN', description: 'x' }),
  resolveExceptions: (pool) =>
    appendEvents(pool, [
      event({ source: 'manual', kind: 'resolution', status: null, amountMinor: null, currency: null, note: 'checked' }),
    ]),
  importCallbacks: (pool) =>
    appendEvents(pool, [event({ source: 'import', kind: 'outcome', status: 'COMPLETED', signature: 'verified' })]),
  manageOperators: (pool) =>
    addOperator(
      { pool },
      {
        login: `added_${crypto.randomBytes(3).toString('hex')}_${++n}`,
        role: 'support',
        password: `pw-${crypto.randomBytes(12).toString('hex')}`,
        displayName: 'added',
      },
    ),
};

async function allowed(pool: pg.Pool, action: TeamAction): Promise<boolean> {
  try {
    await TRY[action](pool);
    return true;
  } catch (e) {
    if (e instanceof TeamPermissionError) return false;
    throw e;
  }
}

describe('what the screens offer each role', () => {
  for (const action of Object.keys(TEAM_ACTIONS) as TeamAction[]) {
    it(`${action}: offered to ${TEAM_ACTIONS[action].roles.join(', ')}, exactly the roles PostgreSQL lets do it`, async () => {
      const got: Record<string, boolean> = {};
      const want: Record<string, boolean> = {};
      for (const role of DESK_ROLES) {
        got[role] = await allowed(team.signIn(logins.get(role)!), action);
        want[role] = roleMay(role, action);
      }
      expect(got).toEqual(want);
    });
  }
});
