// Payment options cache: the latest successful list, replaced whole per successful poll (one
// transaction with its poll_runs row). A failed or malformed poll leaves the cached list as it was.
import type { ReadDb, WriteDb } from './connection.js';
import { readStatement } from './statements.js';
import { int, num, rowMapper, text } from '../columns.js';
import { writeTransaction } from './transaction.js';
import type { PaymentOption } from '../../service/types.js';
import { CURRENCY_CODE } from '../../money/index.js';
import { MalformedAnswerError, type RunResult } from './balances.js';
import { cacheState, insertPollRun, recordFailedRun, type CacheState, type PollError } from './poll-runs.js';
import { messageOf } from '../../errors.shared.js';

export interface PaymentOptionRow extends PaymentOption {
  fetchedAt: number;
}

export interface PaymentOptionsFilter {
  currency?: string;
  /** Compared case-insensitively ("COLLECTION" matches the records' "Collection"). */
  transactionType?: string;
  /** e.g. CARD, MOBILE_MONEY; case-insensitive. */
  method?: string;
  active?: boolean;
}

export interface PaymentOptionsList extends CacheState {
  rows: PaymentOptionRow[];
}

/** A payment_options row (option_prefixes is a JSON array of texts). */
/** A payment_options row as the app uses it (the cache's readers and the card form's option). */
export const paymentOptionRowOf = rowMapper<PaymentOptionRow>((r) => {
  const stored = text(r, 'option_prefixes');
  let prefixes: string[] = [];
  try {
    const p: unknown = JSON.parse(stored);
    if (Array.isArray(p)) prefixes = p.filter((x): x is string => typeof x === 'string');
  } catch {
    /* written by us as JSON; an unreadable value shows as no prefixes */
  }
  return {
    providerName: text(r, 'provider_name'),
    providerCode: text(r, 'provider_code'),
    transactionMethod: text(r, 'transaction_method'),
    transactionMethodName: text(r, 'transaction_method_name'),
    transactionType: text(r, 'transaction_type'),
    currency: text(r, 'currency'),
    minMinor: int(r, 'min_minor'),
    maxMinor: int(r, 'max_minor'),
    maxDailyMinor: int(r, 'max_daily_minor'),
    isActive: int(r, 'is_active') === 1,
    optionPrefixes: prefixes,
    fetchedAt: num(r, 'fetched_at'),
  };
});

export function checkPaymentOptions(options: readonly PaymentOption[]): void {
  if (!Array.isArray(options)) throw new MalformedAnswerError('payment_providers is not a list');
  options.forEach((o, i) => {
    const at = `payment_providers[${i}]`;
    for (const [f, v] of [
      ['provider_code', o.providerCode],
      ['provider_name', o.providerName],
      ['transaction_method', o.transactionMethod],
      ['transaction_type', o.transactionType],
    ] as const) {
      if (typeof v !== 'string' || v.length === 0) throw new MalformedAnswerError(`${at}.${f} is missing`);
    }
    if (typeof o.currency !== 'string' || !CURRENCY_CODE.test(o.currency)) {
      throw new MalformedAnswerError(`${at}.transaction_currency is not a 3-letter currency code`);
    }
    for (const [f, v] of [
      ['min_amount', o.minMinor],
      ['max_amount', o.maxMinor],
      ['max_daily_amount', o.maxDailyMinor],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 0) throw new MalformedAnswerError(`${at}.${f} is not a valid amount`);
    }
    if (typeof o.isActive !== 'boolean') throw new MalformedAnswerError(`${at}.is_active is not true or false`);
    if (!Array.isArray(o.optionPrefixes)) throw new MalformedAnswerError(`${at}.option_prefixes is not a list`);
  });
}

/**
 * Records one payment-options poll. On success the cached list is replaced whole (same transaction as
 * the poll_runs row); on an error result or a malformed answer only the failed run is recorded, except
 * that a partial answer (some currencies read) replaces the options of those currencies, in the same
 * transaction as the failed run that names the others.
 */
export function recordProvidersRun(
  db: WriteDb,
  run: { startedAt: number; finishedAt: number; result: RunResult<readonly PaymentOption[]> },
): { runId: number; changed: number; error: PollError | null } {
  const { startedAt, finishedAt, result } = run;
  const value = result.ok ? result.value : result.partial?.value;
  if (value === undefined) {
    const error = (result as { error: PollError }).error;
    return { runId: recordFailedRun(db, 'providers', startedAt, finishedAt, error), changed: 0, error };
  }
  try {
    checkPaymentOptions(value);
  } catch (e) {
    const error: PollError = {
      kind: 'unreadable',
      message: `the payment options answer was not usable: ${messageOf(e)}`,
    };
    return { runId: recordFailedRun(db, 'providers', startedAt, finishedAt, error), changed: 0, error };
  }
  return writeTransaction(db, () => {
    if (result.ok) {
      const runId = insertPollRun(db, {
        kind: 'providers',
        startedAt,
        finishedAt,
        outcome: 'ok',
        changedRows: value.length,
      });
      db.prepare('DELETE FROM payment_options').run();
      insertOptions(db, value, finishedAt, runId);
      return { runId, changed: value.length, error: null };
    }
    const runId = recordFailedRun(db, 'providers', startedAt, finishedAt, result.error);
    const del = db.prepare('DELETE FROM payment_options WHERE currency = ?');
    for (const c of result.partial!.currencies) del.run(c);
    insertOptions(db, value, finishedAt, runId);
    return { runId, changed: value.length, error: result.error };
  });
}

function insertOptions(db: WriteDb, options: readonly PaymentOption[], fetchedAt: number, runId: number): void {
  // A repeated (code, currency, type) keeps the last record the service sent.
  const ins = db.prepare(
    `INSERT OR REPLACE INTO payment_options (provider_code, currency, transaction_type, provider_name, transaction_method,
       transaction_method_name, min_minor, max_minor, max_daily_minor, is_active, option_prefixes, fetched_at, poll_run_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const o of options) {
    ins.run(
      o.providerCode,
      o.currency,
      o.transactionType,
      o.providerName,
      o.transactionMethod,
      o.transactionMethodName ?? '',
      o.minMinor,
      o.maxMinor,
      o.maxDailyMinor,
      o.isActive ? 1 : 0,
      JSON.stringify(o.optionPrefixes),
      fetchedAt,
      runId,
    );
  }
}

/** The cached options, filtered, ordered by currency, method and name. */
export function listPaymentOptions(db: ReadDb, filter: PaymentOptionsFilter = {}): PaymentOptionRow[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.currency) {
    where.push('currency = ?');
    args.push(filter.currency.toUpperCase());
  }
  if (filter.transactionType) {
    where.push('UPPER(transaction_type) = ?');
    args.push(filter.transactionType.toUpperCase());
  }
  if (filter.method) {
    where.push('UPPER(transaction_method) = ?');
    args.push(filter.method.toUpperCase());
  }
  if (filter.active !== undefined) {
    where.push('is_active = ?');
    args.push(filter.active ? 1 : 0);
  }
  const sql = `SELECT * FROM payment_options ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
               ORDER BY currency, transaction_method, provider_name, provider_code`;
  return readStatement(db, sql)
    .all(...args)
    .map(paymentOptionRowOf);
}

/** The cached options with as-of, last error and stale flag. */
export function paymentOptionsList(
  db: ReadDb,
  opts: PaymentOptionsFilter & { now: number; staleAfterMs: number },
): PaymentOptionsList {
  const { now, staleAfterMs, ...filter } = opts;
  return { rows: listPaymentOptions(db, filter), ...cacheState(db, 'providers', now, staleAfterMs) };
}
