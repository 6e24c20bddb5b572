// A desk (or serve) holding a team connection when PostgreSQL goes away under it: the server stopped with
// -m immediate, a failover, a line reset. The work must fail with words a person can read and the process
// must go on (the day's kill-free PostgreSQL restart found desks dying of it: a pooled connection taken
// out of the pool had nobody listening for its 'error', so node ended the process). Each case runs in a
// child process (transaction-break-child.ts), which would die of it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  await team?.close();
});

function child(...args: string[]) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'transaction-break-child.ts');
  return spawnSync(process.execPath, ['--import', 'tsx', file, ...args], { encoding: 'utf8', timeout: 90_000 });
}
const throughLine = (url: string) => url.replace(`:${team.db.server.port}/`, ':PORT/');

it('a transaction whose connection dies fails with a clear message, and the process goes on', async () => {
  const login = await team.addOperator('support');
  const url = throughLine(team.db.urlFor(login, team.password(login)));
  const r = child('transaction', team.db.server.host, String(team.db.server.port), url);
  expect(r.stderr).not.toMatch(/Unhandled 'error' event/);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/answered: the team database cannot be reached/);
  expect(r.stdout).toMatch(/still running/);
});

it('a migration whose connection dies fails with a clear message, and the process goes on', async () => {
  // migrate() holds one connection out of the pool for every step (desks and serve migrate at their start).
  const r = child(
    'migrate',
    team.db.server.host,
    String(team.db.server.port),
    throughLine(team.db.adminUrl),
    team.db.adminUrl,
  );
  expect(r.stderr).not.toMatch(/Unhandled 'error' event/);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/answered: .*the team database cannot be reached/);
  expect(r.stdout).toMatch(/still running/);
  // Nothing of the cut migration stayed.
  const v = await team.owner.query<{ v: number }>('SELECT max(version)::int AS v FROM team.schema_migrations');
  expect(v.rows[0]!.v).toBeLessThan(10_000);
});
