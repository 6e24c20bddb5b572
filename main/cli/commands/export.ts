// merchant-desk export balances|collections: the same reports as the app, streamed on a worker thread,
// as CSV or, when --out names an .xlsx file, as a workbook; progress on stderr; Ctrl-C stops and removes
// the partial file. FILE appears only when complete.
import { withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { parseDateBound, ReportError } from '../../reports/index.js';
import { checkExportOut, exportJob, exportReport, formatOfFile } from '../../operations/export.js';

const USAGE =
  'merchant-desk [--data-dir DIR] export balances --from DATE --to DATE --out FILE [--bom]\n' +
  '       merchant-desk [--data-dir DIR] export collections [--from DATE] [--to DATE] --out FILE [--bom]\n' +
  '       DATE is YYYY-MM-DD (a whole local day; --to is inclusive) or an ISO 8601 time with offset\n' +
  '       FILE ending in .xlsx is an Excel workbook (typed cells; the balance report on two sheets), any\n' +
  '       other name CSV (--bom: a byte-order mark first; the balance report in two files)';

function bound(v: string | undefined, flag: string, edge: 'start' | 'end'): number | undefined {
  if (v === undefined) return undefined;
  try {
    return parseDateBound(v, flag, edge);
  } catch (e) {
    throw new UsageError(e instanceof ReportError ? e.message : String(e));
  }
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'export the balance or collections report as CSV or .xlsx',
  usage: USAGE,
  onFailure: 'no report was written (the file appears only when it is complete)',
  async run(args, ctx) {
    const { values, positionals } = parseCommandArgs({
      args,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        bom: { type: 'boolean', default: false },
      },
      allowPositionals: true,
      strict: true,
    });
    const what = positionals[0];
    if (what !== 'balances' && what !== 'collections')
      throw new UsageError('say what to export: "balances" or "collections"');
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    if (!values.out) throw new UsageError('--out FILE is required: where to write the report (.csv or .xlsx)');
    const format = formatOfFile(values.out);
    if (format === 'xlsx' && values.bom)
      throw new UsageError('--bom is for CSV files: an .xlsx workbook has no byte-order mark');
    const from = bound(values.from, '--from', 'start');
    const to = bound(values.to, '--to', 'end');
    let job;
    try {
      job = exportJob({ kind: what, from, to });
    } catch (e) {
      // The operation's rules of a range (its order, a balance report's two dates), named as the flags.
      if (e instanceof ReportError) throw new UsageError(e.field ? `--${e.field}: ${e.message}` : e.message);
      throw e;
    }
    try {
      checkExportOut(values.out); // before the data folder is opened
    } catch (e) {
      if (e instanceof ReportError) throw new UsageError(e.message.replace(/^out:/, '--out:'));
      throw e;
    }
    const ac = new AbortController();
    const onSigint = () => ac.abort();
    process.once('SIGINT', onSigint);
    try {
      return await withWorkspace(ctx, async ({ db, settings, clock }) => {
        let shown = -1;
        const r = await exportReport(
          { db, clock, stalePendingAfterMs: () => settings.stalePendingAfterMs },
          job,
          values.out!,
          {
            format,
            bom: values.bom,
            signal: ac.signal,
            onProgress: (p) => {
              if (p.phase !== 'writing' || p.total === 0) return;
              const pct = Math.floor((p.done * 100) / p.total);
              if (pct >= shown + 10 || (pct === 100 && shown !== 100)) {
                shown = pct;
                ctx.io.stderr.write(`exporting: ${p.done} of ${p.total} rows (${pct}%)\n`);
              }
            },
          },
        );
        for (const f of r.files) ctx.io.stdout.write(f + '\n');
        ctx.io.stderr.write(
          `${r.rows} ${what === 'balances' ? 'snapshot' : 'collection'} row${r.rows === 1 ? '' : 's'} written\n`,
        );
        return 0;
      });
    } catch (e) {
      if (e instanceof ReportError && e.kind === 'validation')
        throw new UsageError(e.message.replace(/^out:/, '--out:'));
      throw e;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};
