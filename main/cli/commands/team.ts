// merchant-desk team: sets up a team database (`init`: migrations as the database owner, then the first
// admin) and manages its operators (`operators ...`, signed in as an admin). PostgreSQL decides who may
// do what; this command only gathers the input and says the outcome, or the refusal, in plain words.
//
// Passwords never come from arguments (shell history, the process list): the sign-in password comes
// from PGPASSWORD, a hidden prompt on a terminal, or the first line of standard input; a new operator
// password from MERCHANT_DESK_NEW_PASSWORD, a hidden prompt (typed twice), or the next line.
//
// Each subcommand is a module of its own (team-init.ts, team-operators.ts, team-snapshot.ts); what they
// share is team-passwords.ts (where passwords come from) and team-database.ts (--database, signing in).
import { UsageError, type Command } from '../command.js';
import { TLS_USAGE } from '../team-tls.js';
import { TEAM_ROLES } from '../../team/roles.shared.js';
import { NEW_PASSWORD_ENV, refusePasswordsInArgs, SIGN_IN_PASSWORD_ENV } from './team-passwords.js';
import { DB } from './team-database.js';
import { runInit } from './team-init.js';
import { OPERATOR_ACTIONS, runOperators, type OperatorAction } from './team-operators.js';
import { runSnapshot } from './team-snapshot.js';

const USAGE = [
  `merchant-desk team init ${DB} --admin LOGIN [--name NAME] [--no-password]`,
  `       merchant-desk team operators list ${DB} [--json]`,
  `       merchant-desk team operators add ${DB} --login LOGIN --role ${TEAM_ROLES.join('|')} --name NAME`,
  `       merchant-desk team operators disable|enable ${DB} --login LOGIN`,
  `       merchant-desk team operators role ${DB} --login LOGIN --role ROLE`,
  `       merchant-desk team operators password ${DB} --login LOGIN`,
  `       merchant-desk team snapshot ${DB} [--service-public-key PEM]   (as back_office or admin: new desks start from it)`,
  `  Every command takes ${TLS_USAGE}: a host other than this computer defaults to verify-full.`,
  `  The sign-in password (the URL's login) comes from ${SIGN_IN_PASSWORD_ENV}, a hidden prompt, or the first line of standard input;`,
  `  a new operator password from ${NEW_PASSWORD_ENV}, a hidden prompt, or the next line. Never from arguments.`,
].join('\n');

export const teamCommand: Command = {
  name: 'team',
  summary: 'set up a team database (init), manage its operators, publish a snapshot for new desks',
  usage: USAGE,
  onFailure: 'what the team database committed before it stopped is kept',
  async run(args, ctx) {
    refusePasswordsInArgs(args);
    const [sub, ...rest] = args;
    if (sub === 'init') return runInit(rest, ctx);
    if (sub === 'snapshot') return runSnapshot(rest, ctx);
    if (sub === 'operators') {
      const [action, ...more] = rest;
      if (!action || !(OPERATOR_ACTIONS as readonly string[]).includes(action))
        throw new UsageError(
          `team operators needs one of ${OPERATOR_ACTIONS.join(', ')}${action ? ` (got ${JSON.stringify(action)})` : ''}`,
        );
      return runOperators(action as OperatorAction, more, ctx);
    }
    throw new UsageError(
      sub ? `unknown team command "${sub}"; use init, operators or snapshot` : 'team needs init, operators or snapshot',
    );
  },
};
