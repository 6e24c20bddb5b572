// merchant-desk providers: the cached payment options list, filterable like the Payment options screen.
import { withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { paymentOptionsList } from '../../store/sqlite/payment-options.js';
import { formatMinor, isKnownCurrency } from '../../money/index.js';
import { formatTable, grouped, iso, parseCurrency, staleLine } from './balances.js';

export const providersCommand: Command = {
  name: 'providers',
  summary: 'show the cached payment options (filter by currency, transaction type, method)',
  usage:
    'merchant-desk [--data-dir DIR] providers [--currency C] [--type COLLECTION] [--method CARD] [--active] [--json]',
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: {
        currency: { type: 'string' },
        type: { type: 'string' },
        method: { type: 'string' },
        active: { type: 'boolean' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const currency = parseCurrency(values.currency);
    for (const [flag, v] of [
      ['--type', values.type],
      ['--method', values.method],
    ] as const) {
      if (v !== undefined && !/^[A-Za-z_]{1,40}$/.test(v))
        throw new UsageError(`${flag} must be a word such as ${flag === '--type' ? 'COLLECTION' : 'CARD'}, got "${v}"`);
    }
    return withWorkspace(ctx, async ({ db, settings, clock }) => {
      // Options are polled every providersMs: stale after three missed polls (or a failed one).
      const staleAfterMs = Math.max(settings.staleAfterMs, settings.pollIntervals.providersMs * 3);
      const r = paymentOptionsList(db, {
        now: clock.now(),
        staleAfterMs,
        ...(currency ? { currency } : {}),
        ...(values.type ? { transactionType: values.type } : {}),
        ...(values.method ? { method: values.method } : {}),
        ...(values.active !== undefined ? { active: values.active } : {}),
      });
      if (values.json) {
        const out = {
          as_of: iso(r.asOf),
          stale: r.stale,
          last_error: r.lastError
            ? { kind: r.lastError.kind, message: r.lastError.message, at: iso(r.lastError.at) }
            : null,
          payment_providers: r.rows.map((o) => ({
            provider_name: o.providerName,
            provider_code: o.providerCode,
            transaction_method: o.transactionMethod,
            transaction_method_name: o.transactionMethodName,
            transaction_type: o.transactionType,
            transaction_currency: o.currency,
            min_amount: fmt(o.minMinor, o.currency),
            max_amount: fmt(o.maxMinor, o.currency),
            max_daily_amount: fmt(o.maxDailyMinor, o.currency),
            is_active: o.isActive,
            option_prefixes: o.optionPrefixes,
          })),
        };
        ctx.io.stdout.write(JSON.stringify(out, null, 2) + '\n');
        return 0;
      }
      ctx.io.stdout.write(staleLine(r) + '\n');
      if (r.rows.length === 0) {
        if (r.asOf !== null) ctx.io.stdout.write('no payment options match\n');
        return 0;
      }
      ctx.io.stdout.write(
        formatTable(
          ['CURRENCY', 'CODE', 'NAME', 'METHOD', 'TYPE', 'MIN', 'MAX', 'MAX DAILY', 'ACTIVE', 'PREFIXES'],
          r.rows.map((o) => [
            o.currency,
            o.providerCode,
            o.providerName,
            o.transactionMethod,
            o.transactionType,
            grouped(o.minMinor, o.currency),
            grouped(o.maxMinor, o.currency),
            grouped(o.maxDailyMinor, o.currency),
            o.isActive ? 'yes' : 'no',
            o.optionPrefixes.join(','),
          ]),
          [5, 6, 7],
        ),
      );
      return 0;
    });
  },
};

function fmt(minor: number, currency: string): string {
  return isKnownCurrency(currency) ? formatMinor(minor, currency) : String(minor);
}
