// One export: date range, format (CSV or Excel), BOM option (CSV), where to save (the shell's dialog, or a file name in the app's
// exports folder: the window never names a path), a progress bar with Cancel while it runs, the result
// (path, rows, size, the folder to open) when done, and errors named on their fields. Its state is
// useExport's.
import { useId } from 'react';
import type { ExportTarget } from '../../../../main/ipc/contract/reports.js';
import { ErrorBanner, Field, ProgressBar } from '../../ui/index.js';
import { fileSize } from '../../ui/format.js';
import { useExport, type ExportDone, type ExportFormat, type ExportKind, type Progress } from './useExport.js';

const PHASE: Record<Progress['phase'], string> = {
  starting: 'Starting',
  reconciling: 'Reconciling before export',
  writing: 'Writing rows',
};

export function ExportForm({
  kind,
  title,
  target,
  rangeRequired,
  initialFrom = '',
  initialTo = '',
  description,
}: {
  kind: ExportKind;
  title: string;
  target: ExportTarget | undefined;
  rangeRequired: boolean;
  initialFrom?: string;
  initialTo?: string;
  description: string;
}) {
  const headingId = useId();
  const x = useExport({ kind, target, rangeRequired, initialFrom, initialTo });
  const what = kind === 'balances' ? 'balance report' : 'collections';
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className="as-of">{description}</p>
      <form
        aria-label={title}
        className="export-form"
        onSubmit={(e) => {
          e.preventDefault();
          void x.start();
        }}
      >
        <ExportFields x={x} rangeRequired={rangeRequired} folder={x.typed ? target?.folder : undefined} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={x.running || target === undefined}>
            {target?.canChoose ? `Export ${what}…` : `Export ${what}`}
          </button>
          {x.running && x.progress && (
            <ProgressBar
              label={PHASE[x.progress.phase]}
              value={x.progress.done}
              {...(x.progress.total > 0 ? { max: x.progress.total } : {})}
              onCancel={x.cancel}
            />
          )}
        </div>
      </form>
      {x.unnamedError && <ErrorBanner error={x.unnamedError} title="Export failed" />}
      {x.notice && (
        <p role="status" className="warn-text">
          {x.notice}
        </p>
      )}
      {x.result && <ExportResult title={title} result={x.result} folder={x.typed ? target?.folder : undefined} />}
    </section>
  );
}

/** The dates (optional unless the report needs them), the format, the BOM (CSV) and, when typed, the file name in `folder`. */
function ExportFields({
  x,
  rangeRequired,
  folder,
}: {
  x: ReturnType<typeof useExport>;
  rangeRequired: boolean;
  folder: string | undefined;
}) {
  return (
    <>
      <div className="row">
        <Field label={rangeRequired ? 'From' : 'From (optional)'} error={x.fieldError('from')}>
          <input
            type="date"
            name="from"
            value={x.values.from}
            onChange={(e) => x.set.from(e.target.value)}
            disabled={x.running}
          />
        </Field>
        <Field label={rangeRequired ? 'To' : 'To (optional)'} error={x.fieldError('to')}>
          <input
            type="date"
            name="to"
            value={x.values.to}
            onChange={(e) => x.set.to(e.target.value)}
            disabled={x.running}
          />
        </Field>
        <Field label="Format" error={x.fieldError('format')}>
          <select
            name="format"
            value={x.values.format}
            onChange={(e) => x.set.format(e.target.value as ExportFormat)}
            disabled={x.running}
          >
            <option value="csv">CSV</option>
            <option value="xlsx">Excel workbook (.xlsx)</option>
          </select>
        </Field>
      </div>
      {x.values.format === 'csv' && (
        <label className="check">
          <input
            type="checkbox"
            name="bom"
            checked={x.values.bom}
            onChange={(e) => x.set.bom(e.target.checked)}
            disabled={x.running}
          />
          Add a byte-order mark (for Excel)
        </label>
      )}
      {folder !== undefined && (
        <Field
          label="File name"
          error={x.fieldError('fileName')}
          hint={`Saved in ${folder}. A name only, ending in .${x.values.format}; nothing is overwritten.`}
        >
          <input
            type="text"
            name="fileName"
            className="path-input"
            value={x.values.fileName}
            spellCheck={false}
            onChange={(e) => x.set.fileName(e.target.value)}
            disabled={x.running}
          />
        </Field>
      )}
    </>
  );
}

/** The rows written, each file's path and size, and (files in the exports folder) where to find them. */
function ExportResult({ title, result, folder }: { title: string; result: ExportDone; folder: string | undefined }) {
  return (
    <div className="banner info result" role="status" aria-label={`${title} result`}>
      <div>
        <strong>
          Exported {result.rows.toLocaleString()} row{result.rows === 1 ? '' : 's'}.
        </strong>
        <ul>
          {result.files.map((f) => (
            <li key={f.path}>
              <span className="mono">{f.path}</span> ({fileSize(f.bytes)})
            </li>
          ))}
        </ul>
        {folder !== undefined && (
          <p className="as-of">
            Open <span className="mono">{folder}</span> in your file manager to find{' '}
            {result.files.length === 1 ? 'it' : 'them'}.
          </p>
        )}
      </div>
    </div>
  );
}
