// A desk (or serve) holding a team transaction when PostgreSQL goes away under it: the server stopped with
// -m immediate, a failover, a line reset. The transaction must fail with words a person can read and the
// process must go on (the day's kill-free PostgreSQL restart found desks dying of it: a pooled connection
// taken out of the pool had nobody listening for its 'error', so node ended the process).
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

it('a transaction whose connection dies fails with a clear message, and the process goes on', async () => {
  const login = await team.addOperator('support');
  const url = team.db.urlFor(login, team.password(login)).replace(`:${team.db.server.port}/`, ':PORT/');
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'transaction-break-child.ts');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', child, team.db.server.host, String(team.db.server.port), url],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect(r.stderr).not.toMatch(/Unhandled 'error' event/);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/answered: the team database cannot be reached/);
  expect(r.stdout).toMatch(/still running/);
});
