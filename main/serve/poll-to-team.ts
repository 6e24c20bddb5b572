// serve's poll sink: balances and payment options, polled once for the whole team, written to
// team.balance_snapshots and team.payment_option_lists (migration 1); desktops pull them from there.
//
// Like the desktop's cache, a wallet gets a snapshot when its values change or it is first seen, and the
// options list a row when it changes: judged against what this process wrote last (serve's login may
// insert there, not read), so each start writes one full round first. The option list is stored as the
// client's PaymentOption objects (camelCase, amounts in integer minor units), a JSON array.
//
// While the team database is silent (down, restarting, failing over), what a poll observed is kept in
// memory, in order, and written as soon as the database can be reached again (team/reconnect.ts probes it
// every second): the poll itself worked, so the poller neither backs off from the service nor loses the
// observation, and the balances are in the team record within about a second of the database's return.
//
// With a poller lease (serve/poll-lease.ts, team migration 16), each write takes or renews the lease in
// its own statement and writes only while this instance holds it: among several serve instances, what one
// polled is written only if no other instance holds the lease, also for what was kept during an outage.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { PaymentOption, WalletBalance } from '../service/types.js';
import { checkBalances } from '../store/sqlite/balances.js';
import { checkPaymentOptions } from '../store/sqlite/payment-options.js';
import type { PollError } from '../store/sqlite/poll-runs.js';
import type { PollSink, RecordedRun } from '../poller/sink.js';
import { insertBalanceSnapshots, type NewBalanceRow, type PollerLeaseFence } from '../store/pg/balance-snapshots.js';
import { insertPaymentOptionList } from '../store/pg/payment-option-lists.js';
import { translatePgError } from '../team/errors.js';
import { poolLogin } from '../team/pool.js';
import { isSilence, reachabilityWatch } from '../team/reconnect.js';

/** Writes kept while the database is silent, at most (a day of balance polls at the default minute). */
const MOST_KEPT = 1_440;

function unusable(kind: string, e: unknown): RecordedRun {
  const error: PollError = {
    kind: 'unreadable',
    message: `the ${kind} answer was not usable: ${(e as Error).message}`,
  };
  return { changed: 0, error };
}

export interface TeamPollSink extends PollSink {
  /** Stops waiting for the database to write what was kept (serve is closing). */
  close(): void;
}

/** `fence`: the poller lease each write holds (null: written whatever another instance does). */
export function teamPollSink(pool: pg.Pool, logger?: Logger, fence: PollerLeaseFence | null = null): TeamPollSink {
  const lastValues = new Map<string, string>();
  let lastOptions: string | null = null;
  /** Writes the database could not take while it was silent, oldest first. */
  const kept: { doing: string; statement: () => Promise<boolean> }[] = [];
  const back = reachabilityWatch(pool.options.connectionString);
  let closed = false;

  /** Writes what was kept, in order, once the database can be reached; waits again while it is silent. */
  async function writeKept(): Promise<void> {
    while (kept.length && !closed) {
      const next = kept[0]!;
      try {
        if (!(await next.statement()))
          logger?.info(
            { doing: next.doing },
            'a poll result kept during the outage is not written: another serve instance polls now',
          );
      } catch (e) {
        const err = translatePgError(e, next.doing, poolLogin(pool));
        if (isSilence(err)) return back.whenReachable(() => void writeKept());
        // An answer (a refusal) would be the same again: said, and not kept.
        logger?.error({ err: err.message }, `a poll result kept during the outage was refused: ${next.doing}`);
      }
      kept.shift();
    }
    if (!closed) logger?.info({}, 'poll results kept during the outage are written to the team database');
  }

  /** Runs `statement`; while the database is silent, keeps it to write when the database is back. */
  const write = async (
    doing: string,
    statement: () => Promise<boolean>,
  ): Promise<'written' | 'kept' | 'not_holder'> => {
    if (kept.length === 0) {
      try {
        return (await statement()) ? 'written' : 'not_holder';
      } catch (e) {
        const err = translatePgError(e, doing, poolLogin(pool));
        if (!isSilence(err)) throw err;
        logger?.warn(
          { err: err.message },
          'the team database cannot be reached: poll results are kept until it is back',
        );
        back.whenReachable(() => void writeKept());
      }
    }
    // Behind what is kept already, so the observations reach the record in the order they were made.
    if (kept.length >= MOST_KEPT)
      logger?.warn({ doing: kept.shift()!.doing }, 'too many poll results kept: the oldest is dropped');
    kept.push({ doing, statement });
    return 'kept';
  };
  return {
    close() {
      closed = true;
      back.stop();
    },
    // The poll log is this process's (the poller's status); nothing is read back from PostgreSQL.
    lastRun: () => null,
    lastSuccessfulRun: () => null,
    async recordBalances(run) {
      if (!run.result.ok) return { changed: 0, error: run.result.error };
      try {
        checkBalances(run.result.value);
      } catch (e) {
        return unusable('balances', e);
      }
      const changed = run.result.value
        .map((b: WalletBalance) => ({
          key: `${b.currency}/${b.walletType}`,
          row: {
            currency: b.currency,
            wallet_type: b.walletType,
            available: String(b.availableMinor),
            actual: String(b.actualMinor),
            uncleared: String(b.unclearedMinor),
            reserve: String(b.reserveMinor),
          } satisfies NewBalanceRow,
        }))
        .filter(({ key, row }) => lastValues.get(key) !== JSON.stringify(row));
      if (changed.length) {
        const rows = changed.map((c) => c.row);
        const done = await write('write balance snapshots', () =>
          insertBalanceSnapshots(pool, run.finishedAt, rows, fence),
        );
        // Kept counts as written: it will be, before anything observed later.
        for (const c of changed) lastValues.set(c.key, JSON.stringify(c.row));
        logger?.info({ poll: 'balances', snapshots: changed.length, done }, 'balance snapshots for the team database');
      }
      return { changed: changed.length, error: null };
    },
    async recordProviders(run) {
      if (!run.result.ok) return { changed: 0, error: run.result.error };
      try {
        checkPaymentOptions(run.result.value);
      } catch (e) {
        return unusable('payment options', e);
      }
      const list = JSON.stringify(run.result.value satisfies readonly PaymentOption[]);
      if (list === lastOptions) return { changed: 0, error: null };
      const done = await write('write the payment option list', () =>
        insertPaymentOptionList(pool, run.finishedAt, list, fence),
      );
      lastOptions = list;
      logger?.info(
        { poll: 'providers', options: run.result.value.length, done },
        'payment option list for the team database',
      );
      return { changed: run.result.value.length, error: null };
    },
  };
}
