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
import { keptWrites } from './kept-writes.js';
import { messageOf } from '../errors.shared.js';

function unusable(kind: string, e: unknown): RecordedRun {
  const error: PollError = {
    kind: 'unreadable',
    message: `the ${kind} answer was not usable: ${messageOf(e)}`,
  };
  return { changed: 0, error };
}

/** The wallets whose snapshot row differs from the last this process wrote (or that it has not seen). */
function changedBalances(
  balances: readonly WalletBalance[],
  lastValues: Map<string, string>,
): { key: string; row: NewBalanceRow }[] {
  return balances
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
}

export interface TeamPollSink extends PollSink {
  /** Stops waiting for the database to write what was kept (serve is closing). */
  close(): void;
}

/** `fence`: the poller lease each write holds (null: written whatever another instance does). */
export function teamPollSink(pool: pg.Pool, logger?: Logger, fence: PollerLeaseFence | null = null): TeamPollSink {
  const lastValues = new Map<string, string>();
  let lastOptions: string | null = null;
  const queue = keptWrites(pool, logger);
  const write = queue.write;
  return {
    close: queue.close,
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
      const changed = changedBalances(run.result.value, lastValues);
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
