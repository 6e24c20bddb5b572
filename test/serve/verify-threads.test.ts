// serve verifying the service's RSA signatures off its event loop (issue 31): a team whose serve has only
// the service public key (no merchant signing key) checks every callback with RSA-SHA512, about 90 µs
// each with a 4,096-bit key, more than the rest of what serve does with a callback. Those checks run on
// worker threads (callbacks/verify-pool.ts) with the same outcomes: a genuine callback stored, a forged
// one answered 401 and counted in the security log. And a commit is logged in one line, with its
// references, not one line per callback. The real process through the CLI, as serve.test.ts runs it.
// Run: TMPDIR=<a folder the postgres user can reach> bash scripts/with-keyring.sh npx vitest run test/serve/verify-threads.test.ts
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedString } from '../../main/service/signatures.js';
import { stopServerSync } from '../support/postgres-server.js';
import { signedCallback, startServe, teamDatabase, type Serve, type TeamDb } from './harness.js';
import { fileTempDir } from '../support/tmp.js';

let team: TeamDb;
let dir: string;
let serve: Serve;
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });

beforeAll(async () => {
  dir = fileTempDir('md-serve-rsa-');
  team = await teamDatabase();
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      team.url,
      '--listen',
      '127.0.0.1:0',
      '--no-poll',
      '--verify-threads',
      '2',
    ],
    {
      PGPASSWORD: team.password,
      MERCHANT_DESK_SERVICE_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
  );
}, 90_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await team?.owner.end().catch(() => undefined);
  if (team) stopServerSync(team.server.dir, team.server.binDir);
});

/** A callback as the service signs it with its RSA key (rsa-signature only), or signed by another key. */
function rsaSigned(key: crypto.KeyObject = privateKey) {
  const cb = signedCallback('unused');
  const fields = {
    event: 'transaction.completed',
    merchant_reference: cb.ref,
    internal_reference: `INT-${cb.ref}`,
    transaction_type: 'Collection',
    transaction_status: 'COMPLETED',
  };
  const rsa = crypto.sign('sha512', Buffer.from(signedString(fields)), key).toString('base64');
  return { ref: cb.ref, body: cb.body, headers: { 'content-type': 'application/json', 'rsa-signature': rsa } };
}

const post = (c: { body: string; headers: Record<string, string> }) =>
  fetch(`${serve.base}/callbacks/collections`, { method: 'POST', body: c.body, headers: c.headers });

describe("serve with the service's RSA key only", () => {
  it('verifies on worker threads: genuine callbacks stored, a forged one refused and counted; a line per commit', async () => {
    const genuine = Array.from({ length: 24 }, () => rsaSigned());
    const forged = rsaSigned(crypto.generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey);
    const answers = await Promise.all([...genuine, forged].map(post));
    expect(answers.map((r) => r.status)).toEqual([...genuine.map(() => 200), 401]);
    const stored = await team.owner.query<{ merchant_reference: string; signature: string }>(
      'SELECT merchant_reference, signature FROM team.events WHERE merchant_reference = ANY($1)',
      [[...genuine, forged].map((c) => c.ref)],
    );
    expect(stored.rows.map((r) => r.merchant_reference).sort()).toEqual(genuine.map((c) => c.ref).sort());
    expect(stored.rows.every((r) => r.signature === 'verified')).toBe(true);

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    const lines = serve
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const stopped = lines.find((l) => l.msg === 'stopped') as {
      stats: { commits: number };
      verification: { offThread: number; inline: number; threads: number };
    };
    // Every RSA check ran on a worker thread; none on serve's own.
    expect(stopped.verification).toMatchObject({ offThread: genuine.length + 1, inline: 0 });
    expect(stopped.verification.threads).toBeGreaterThanOrEqual(1);
    // One line per commit, naming its callbacks; none per callback.
    const commits = lines.filter((l) => l.msg === 'callbacks stored') as { references: string[]; stored: number }[];
    expect(lines.filter((l) => l.msg === 'callback stored')).toEqual([]);
    expect(commits.flatMap((c) => c.references).sort()).toEqual(genuine.map((c) => c.ref).sort());
    expect(commits.length).toBeLessThanOrEqual(stopped.stats.commits);

    // The forgery is only counted, in serve's security log.
    const db = new Database(path.join(dir, 'serve', 'serve.sqlite'), { readonly: true });
    try {
      const counted = db.prepare('SELECT reason, sum(count) AS n FROM callback_security_log GROUP BY reason').all();
      expect(counted).toEqual([{ reason: 'bad_signature', n: 1 }]);
    } finally {
      db.close();
    }
  });
});
