// A desk process for the kill -9 test (outbox.test.ts): stores charge events through the ledger with
// their outbox rows, one every few milliseconds, and runs the push against a team database that is
// stopped, printing how many it has stored, until it is killed.
//   node --import tsx outbox-child.ts <sqlite file> <team url> <references, comma separated>
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { testLedger } from '../support/ledger.js';
import { systemClock } from '../../main/clock.js';
import { openTeamPool } from '../../main/team/pool.js';
import { startOutboxPush } from '../../main/team/sync/push.js';

const [file, url, refs] = process.argv.slice(2) as [string, string, string];
const { ledger } = testLedger(); // as composeCore composes its own
const db = openDatabase(file);
const pool = openTeamPool(url, { onIdleError: () => undefined });
const quiet = { info() {}, warn() {} };
const push = startOutboxPush({ pool, db, clock: systemClock, logger: quiet, retryFirstMs: 20, retryMaxMs: 50 });
const ids = db.prepare('SELECT id FROM collections WHERE merchant_reference = ?').pluck();
let stored = 0;
for (const reference of refs.split(',')) {
  const id = ids.get(reference) as number;
  for (const kind of ['initialize_accepted', 'window_closed'] as const) {
    ledger.append(
      db,
      {
        collectionId: id,
        merchantReference: reference,
        source: kind === 'initialize_accepted' ? 'initiate' : 'redirect',
        kind,
        status: kind === 'initialize_accepted' ? 'PENDING' : null,
        receivedAt: Date.now(),
        signature: 'not_applicable',
        internalReference: kind === 'initialize_accepted' ? `INT-${reference}` : null,
        paymentUrl: kind === 'initialize_accepted' ? `https://pay.example.invalid/${reference}` : null,
        note: kind === 'window_closed' ? 'closed by the agent before the payment finished' : null,
      },
      { outbox: true },
    );
    push.kick();
    process.stdout.write(`stored ${++stored}\n`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
process.stdout.write('all stored\n');
// Stays up (the push retrying) until the test kills it.
setInterval(() => undefined, 1000);
