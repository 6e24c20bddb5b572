// A process holding a team transaction when its connection to PostgreSQL dies (the server stopped with
// -m immediate, a line reset): transaction-break.test.ts. It opens the team pool through a TCP line, starts
// a transaction, cuts the line in the middle of it and prints what the transaction answered; a process
// that dies of the broken connection instead prints nothing more.
//   node --import tsx transaction-break-child.ts <team url host:port/db with login and password>
import { openTeamPool, withTransaction } from '../../main/team/pool.js';
import { startLine } from './day/line.js';

const [host, port, rest] = process.argv.slice(2) as [string, string, string];
const line = await startLine(host, Number(port));
const pool = openTeamPool(rest.replace('PORT', String(line.port())), { onIdleError: () => undefined });
try {
  await withTransaction(pool, 'read the record', async (c) => {
    await c.query('SELECT 1');
    await line.cut();
    // The connection's end reaches the client while this query waits.
    await c.query('SELECT pg_sleep(0.2)');
  });
  process.stdout.write('answered: nothing went wrong\n');
} catch (e) {
  process.stdout.write(`answered: ${(e as Error).message}\n`);
}
// Whatever the broken connection still says arrives in the next turns: the process must outlive them.
await new Promise((r) => setTimeout(r, 500));
process.stdout.write('still running\n');
await pool.end().catch(() => undefined);
await line.close();
