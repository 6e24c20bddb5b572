// merchant-desk balances: the cached wallet balances (what the app shows), with their as-of time and a
// stale marker. Reads the local cache only; `merchant-desk poll --once` refreshes it.
import { withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { latestBalances } from '../../store/sqlite/balances.js';
import { CURRENCY_CODE, formatMinor, isKnownCurrency } from '../../money/index.js';

/** Left-aligned text columns, right-aligned numbers (columns listed in `right`). */
export function formatTable(headers: string[], rows: string[][], right: number[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** "1,500,000.50" (no currency code: it has its own column). */
export function grouped(minor: number, currency: string): string {
  const plain = isKnownCurrency(currency) ? formatMinor(minor, currency) : String(minor);
  const [whole = '', frac] = plain.replace('-', '').split('.');
  return (minor < 0 ? '-' : '') + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac !== undefined ? '.' + frac : '');
}

export function parseCurrency(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const c = v.trim().toUpperCase();
  if (!CURRENCY_CODE.test(c))
    throw new UsageError(`--currency must be a 3-letter currency code such as UGX, got "${v}"`);
  return c;
}

export function staleLine(state: {
  asOf: number | null;
  stale: boolean;
  lastError: { kind: string; message: string; at: number } | null;
}): string {
  if (state.asOf === null) {
    return state.lastError
      ? `nothing cached yet; the last poll failed (${state.lastError.kind}): ${state.lastError.message}`
      : 'nothing cached yet; run "merchant-desk poll --once"';
  }
  let s = `as of ${iso(state.asOf)}`;
  if (state.stale) {
    s += state.lastError
      ? ` (STALE: the last poll at ${iso(state.lastError.at)} failed (${state.lastError.kind}): ${state.lastError.message})`
      : ' (STALE: not refreshed recently; run "merchant-desk poll --once")';
  }
  return s;
}

export const balancesCommand: Command = {
  name: 'balances',
  summary: 'show the cached wallet balances with their as-of time (poll --once refreshes)',
  usage: 'merchant-desk [--data-dir DIR] balances [--currency C] [--json]',
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: { currency: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
    });
    const currency = parseCurrency(values.currency);
    return withWorkspace(ctx, async ({ db, settings, clock }) => {
      const r = latestBalances(db, {
        now: clock.now(),
        staleAfterMs: settings.staleAfterMs,
        ...(currency ? { currency } : {}),
      });
      if (values.json) {
        const out = {
          as_of: iso(r.asOf),
          stale: r.stale,
          last_error: r.lastError
            ? { kind: r.lastError.kind, message: r.lastError.message, at: iso(r.lastError.at) }
            : null,
          balances: r.rows.map((b) => ({
            currency: b.currency,
            wallet_type: b.walletType,
            available_balance: fmt(b.availableMinor, b.currency),
            uncleared_balance: fmt(b.unclearedMinor, b.currency),
            reserve_balance: fmt(b.reserveMinor, b.currency),
            actual_balance: fmt(b.actualMinor, b.currency),
            consistent: b.consistent,
            changed_at: iso(b.observedAt),
          })),
        };
        ctx.io.stdout.write(JSON.stringify(out, null, 2) + '\n');
        return 0;
      }
      ctx.io.stdout.write(staleLine(r) + '\n');
      if (r.rows.length === 0) {
        if (currency && r.asOf !== null) ctx.io.stdout.write(`no ${currency} wallets\n`);
        return 0;
      }
      ctx.io.stdout.write(
        formatTable(
          ['CURRENCY', 'WALLET', 'AVAILABLE', 'UNCLEARED', 'RESERVE', 'ACTUAL', ''],
          r.rows.map((b) => [
            b.currency,
            b.walletType,
            grouped(b.availableMinor, b.currency),
            grouped(b.unclearedMinor, b.currency),
            grouped(b.reserveMinor, b.currency),
            grouped(b.actualMinor, b.currency),
            b.consistent ? '' : '! actual is not available + uncleared + reserve',
          ]),
          [2, 3, 4, 5],
        ),
      );
      return 0;
    });
  },
};

function fmt(minor: number, currency: string): string {
  return isKnownCurrency(currency) ? formatMinor(minor, currency) : String(minor);
}
