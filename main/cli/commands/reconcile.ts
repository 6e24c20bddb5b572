// merchant-desk reconcile: brings reconciliation up to date (the reconciler's due: pending collections whose
// stale time has passed, the one thing no event drives; --full recomputes every collection) and prints
// the summary and the open exceptions. --json for scripts.
import { withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type CliContext, type Command } from '../command.js';
import { getSummary, listExceptions, listOrphanCallbacks, KIND_LABELS, type ReconKind } from '../../reconcile/index.js';
import { formatTable, grouped } from './balances.js';
import { reconcileNow, recomputeAll } from '../../operations/reconcile.js';

type Summary = ReturnType<typeof getSummary>;
type Exceptions = ReturnType<typeof listExceptions>;
type Orphans = ReturnType<typeof listOrphanCallbacks>;
type Out = CliContext['io']['stdout'];

/** The summary, the exceptions (amounts as plain decimals) and the orphans, for scripts. */
function writeJson(out: Out, summary: Summary, exceptions: Exceptions, orphans: Orphans): void {
  out.write(
    JSON.stringify(
      {
        summary,
        exceptions: exceptions.rows.map((r) => ({
          ...r,
          amount: grouped(r.amountMinor, r.currency).replace(/,/g, ''),
        })),
        exceptions_total: exceptions.total,
        orphans: orphans.rows,
        orphans_total: orphans.total,
      },
      null,
      2,
    ) + '\n',
  );
}

/** How many collections, by outcome, and the open exceptions and orphans by kind. */
function writeSummary(out: Out, summary: Summary): void {
  out.write(`${summary.collections} collections reconciled at ${summary.computedAt}\n`);
  const outcomes = Object.entries(summary.byOutcome).filter(([, n]) => n > 0);
  if (outcomes.length)
    out.write(
      formatTable(
        ['OUTCOME', 'COLLECTIONS'],
        outcomes.map(([k, n]) => [k, String(n)]),
        [1],
      ),
    );
  out.write(
    `\n${summary.openExceptions} open exception${summary.openExceptions === 1 ? '' : 's'}, ${summary.orphans.open} orphan callback${summary.orphans.open === 1 ? '' : 's'}`,
  );
  const kinds = Object.entries(summary.openByKind).filter(([, n]) => n > 0);
  out.write(kinds.length ? ` (${kinds.map(([k, n]) => `${k} ${n}`).join(', ')})\n` : '\n');
}

/** The open exceptions, oldest first, then what each kind shown means. */
function writeExceptions(out: Out, exceptions: Exceptions): void {
  if (!exceptions.rows.length) return;
  out.write('\n');
  out.write(
    formatTable(
      ['REFERENCE', 'CREATED', 'AMOUNT', 'CUR', 'STATUS', 'OPEN', 'SOURCES (initiate/redirect/callback)'],
      exceptions.rows.map((r) => [
        r.merchantReference,
        r.createdAt,
        grouped(r.amountMinor, r.currency),
        r.currency,
        r.status,
        r.openKinds.join(', '),
        [r.sources.initiate, r.sources.redirect, r.sources.callback].map((s) => s ?? '-').join('/'),
      ]),
      [2],
    ),
  );
  if (exceptions.total > exceptions.rows.length)
    out.write(`... and ${exceptions.total - exceptions.rows.length} more (--limit, or --json)\n`);
  out.write(
    '\nkinds: ' +
      [...new Set(exceptions.rows.flatMap((r) => r.openKinds))]
        .map((k) => `${k} = ${KIND_LABELS[k as ReconKind]}`)
        .join('; ') +
      '\n',
  );
}

function writeOrphans(out: Out, orphans: Orphans): void {
  if (!orphans.rows.length) return;
  out.write('\norphan callbacks (unknown reference):\n');
  out.write(
    formatTable(
      ['EVENT', 'REFERENCE', 'STATUS', 'RECEIVED'],
      orphans.rows.map((o) => [String(o.eventId), o.merchantReference, o.status ?? '-', o.receivedAt]),
      [0],
    ),
  );
}

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'reconcile collections and print the summary and the open exceptions',
  usage: 'merchant-desk [--data-dir DIR] reconcile [--full] [--limit N] [--json]',
  onFailure: 'the collections and their events were not changed; run it again',
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        full: { type: 'boolean', default: false },
        limit: { type: 'string' },
      },
      strict: true,
    });
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${values.limit}"`);
    return withWorkspace(ctx, async ({ db, settings, clock, reconciler }) => {
      const deps = { db, clock, reconciler, stalePendingAfterMs: () => settings.stalePendingAfterMs };
      if (values.full) {
        let shown = -1;
        await recomputeAll(deps, {
          onProgress: (p) => {
            const pct = p.total ? Math.floor((p.done * 100) / p.total) : 100;
            if (!values.json && pct >= shown + 10) {
              shown = pct;
              ctx.io.stderr.write(`reconciling: ${p.done} of ${p.total} (${pct}%)\n`);
            }
          },
        });
      } else reconcileNow(deps);
      const opts = { now: clock.now(), stalePendingAfterMs: settings.stalePendingAfterMs };
      const summary = getSummary(db, opts);
      const exceptions = listExceptions(db, { limit, sort: 'oldest' }, opts);
      const orphans = listOrphanCallbacks(db, { limit });
      if (values.json) {
        writeJson(ctx.io.stdout, summary, exceptions, orphans);
        return 0;
      }
      writeSummary(ctx.io.stdout, summary);
      writeExceptions(ctx.io.stdout, exceptions);
      writeOrphans(ctx.io.stdout, orphans);
      return 0;
    });
  },
};
