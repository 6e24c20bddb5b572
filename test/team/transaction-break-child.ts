// A process holding a team connection when its line to PostgreSQL dies (the server stopped with -m immediate,
// a line reset): transaction-break.test.ts. It opens the team pool through a TCP line, starts the work, cuts
// the line in the middle of it and prints what the work answered; a process that dies of the broken
// connection instead prints nothing more.
//   node --import tsx transaction-break-child.ts transaction <host> <port> <team url, host:PORT/db, login, password>
//   node --import tsx transaction-break-child.ts migrate <host> <port> <owner url, host:PORT/db> <owner url, direct>
// transaction: a team transaction (withTransaction), cut between two of its queries. migrate: migrate() with
// one more migration that sleeps, cut while PostgreSQL runs it (seen from a connection of its own).
import pg from 'pg';
import { migrate } from '../../main/team/migrate.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { openTeamPool, withTransaction } from '../../main/team/pool.js';
import { startLine } from './day/line.js';
import { sleep } from '../support/wait.js';

const [mode, host, port, rest, direct] = process.argv.slice(2) as [string, string, string, string, string?];
const line = await startLine(host, Number(port));
const pool = openTeamPool(rest.replace('PORT', String(line.port())), { onIdleError: () => undefined });

async function work(): Promise<void> {
  if (mode === 'transaction') {
    await withTransaction(pool, 'read the record', async (c) => {
      await c.query('SELECT 1');
      await line.cut();
      // The connection's end reaches the client while this query waits.
      await c.query('SELECT pg_sleep(0.2)');
    });
    return;
  }
  const watcher = new pg.Client({ connectionString: direct });
  await watcher.connect();
  const slow = { version: 10_000, name: 'slow', sql: 'SELECT pg_sleep(30)' };
  const running = migrate(pool, [...teamMigrations, slow]);
  try {
    for (let i = 0; i < 600; i++) {
      const r = await watcher.query("SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'");
      if (r.rowCount) break;
      await sleep(50);
    }
    await line.cut();
    await running;
  } finally {
    // The sleeping backend lives on until its sleep ends: end it, so the test's database can go.
    await watcher.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'");
    await watcher.end();
  }
}

try {
  await work();
  process.stdout.write('answered: nothing went wrong\n');
} catch (e) {
  process.stdout.write(`answered: ${(e as Error).message}\n`);
}
// Whatever the broken connection still says arrives in the next turns: the process must outlive them.
await sleep(500);
process.stdout.write('still running\n');
await pool.end().catch(() => undefined);
await line.close();
