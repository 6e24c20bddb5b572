// merchant-desk team snapshot: publishes a snapshot of the record for new desks, as back_office or admin.
import fs from 'node:fs';
import type pg from 'pg';
import { parseCommandArgs, UsageError, type CliContext } from '../command.js';
import { TLS_OPTIONS } from '../team-tls.js';
import { publishSnapshot } from '../../team/snapshot/publish.js';
import { Passwords } from './team-passwords.js';
import { checkSignIn, databaseUrl, loginOfUrl, openSignedIn, tlsOf, withFlagNames } from './team-database.js';
import { messageOf } from '../../errors.shared.js';

/**
 * Publishes a snapshot of the record (team/snapshot/): a new desk starts from it instead of replaying
 * every event, after checking each of its rows against the record. Meant for a nightly timer.
 */
export async function runSnapshot(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: {
      database: { type: 'string' },
      'no-password': { type: 'boolean', default: false },
      'service-public-key': { type: 'string' },
      ...TLS_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const url = databaseUrl(values.database);
  const tls = tlsOf(values, url, ctx);
  const me = loginOfUrl(url, ctx.env);
  // The desks check every signed event with the service public key: a snapshot made with the same check
  // carries their verdicts (without it, the writers' claims: taken only when every signed event verifies).
  const pemFile = values['service-public-key'];
  let pem: string | null = null;
  if (pemFile !== undefined) {
    try {
      pem = fs.readFileSync(pemFile, 'utf8');
    } catch (e) {
      throw new UsageError(`--service-public-key: cannot read ${pemFile} (${messageOf(e)})`);
    }
  }
  const passwords = new Passwords(ctx);
  let pool: pg.Pool | undefined;
  try {
    pool = openSignedIn(url, values['no-password'] ? null : await passwords.signIn(me), tls);
    await checkSignIn(pool, me);
    const started = Date.now();
    let told = started; // progress only for a copy that takes a while
    const s = await publishSnapshot({
      pool,
      now: () => Date.now(),
      ...(pem ? { keys: { servicePublicKey: pem } } : {}),
      onProgress: (p) => {
        if (Date.now() - told < 5_000) return;
        told = Date.now();
        ctx.io.stderr.write(
          `copied ${p.copiedSeq.toLocaleString('en')} of ${p.totalSeq.toLocaleString('en')} events\n`,
        );
      },
    });
    ctx.io.stdout.write(
      `published a snapshot of the record up to seq ${s.uptoSeq} (${s.events.toLocaleString('en')} events, ` +
        `${s.collections.toLocaleString('en')} collections, ${(s.bytes / 1048576).toFixed(1)} MiB) as ${s.madeBy} ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s; older snapshots were removed\n`,
    );
    return 0;
  } catch (e) {
    throw withFlagNames(e);
  } finally {
    passwords.close();
    await pool?.end().catch(() => undefined);
  }
}
