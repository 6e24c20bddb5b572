// serve's poll sink: balances and payment options, polled once for the whole team, written to
// team.balance_snapshots and team.payment_option_lists (migration 1); desktops pull them from there.
//
// Like the desktop's cache, a wallet gets a snapshot when its values change or it is first seen, and the
// options list a row when it changes: judged against what this process wrote last (serve's login may
// insert there, not read), so each start writes one full round first. The option list is stored as the
// client's PaymentOption objects (camelCase, amounts in integer minor units), a JSON array.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { PaymentOption, WalletBalance } from '../service/types.js';
import { checkBalances } from '../store/sqlite/balances.js';
import { checkPaymentOptions } from '../store/sqlite/payment-options.js';
import type { PollError } from '../store/sqlite/poll-runs.js';
import type { PollSink, RecordedRun } from '../poller/sink.js';
import { insertBalanceSnapshots, type NewBalanceRow } from '../store/pg/balance-snapshots.js';
import { insertPaymentOptionList } from '../store/pg/payment-option-lists.js';
import { translatePgError } from '../team/errors.js';
import { poolLogin } from '../team/pool.js';

function unusable(kind: string, e: unknown): RecordedRun {
  const error: PollError = {
    kind: 'unreadable',
    message: `the ${kind} answer was not usable: ${(e as Error).message}`,
  };
  return { changed: 0, error };
}

export function teamPollSink(pool: pg.Pool, logger?: Logger): PollSink {
  const lastValues = new Map<string, string>();
  let lastOptions: string | null = null;
  const write = async (doing: string, statement: () => Promise<void>) => {
    try {
      await statement();
    } catch (e) {
      throw translatePgError(e, doing, poolLogin(pool));
    }
  };
  return {
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
        await write('write balance snapshots', () => insertBalanceSnapshots(pool, run.finishedAt, rows));
        for (const c of changed) lastValues.set(c.key, JSON.stringify(c.row));
        logger?.info({ poll: 'balances', snapshots: changed.length }, 'balance snapshots written to the team database');
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
      await write('write the payment option list', () => insertPaymentOptionList(pool, run.finishedAt, list));
      lastOptions = list;
      logger?.info(
        { poll: 'providers', options: run.result.value.length },
        'payment option list written to the team database',
      );
      return { changed: run.result.value.length, error: null };
    },
  };
}
