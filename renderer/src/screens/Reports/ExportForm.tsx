// One export: date range, format (CSV or Excel), BOM option (CSV), where to save (the shell's dialog, or a file name in the app's
// exports folder: the window never names a path), a progress bar with Cancel while it runs, the result
// (path, rows, size, the folder to open) when done, and errors named on their fields. Its state is
// useExport's.
import { useId } from 'react';
import type { ExportTarget } from '../../../../main/ipc/contract/reports.js';
import { ErrorBanner, Field, ProgressBar } from '../../ui/index.js';
import { DateField } from '../../ui/DateField.js';
import { useWords } from '../../words/index.js';
import type { MessageId } from '../../../../main/words/words.shared.js';
import { useExport, type ExportDone, type ExportFormat, type ExportKind, type Progress } from './useExport.js';

const PHASE: Record<Progress['phase'], MessageId> = {
  starting: 'reports.phase.starting',
  reconciling: 'reports.phase.reconciling',
  writing: 'reports.phase.writing',
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
  const { t, say } = useWords();
  const exportLabel: MessageId =
    kind === 'balances'
      ? target?.canChoose
        ? 'reports.exportBalancesChoose'
        : 'reports.exportBalances'
      : target?.canChoose
        ? 'reports.exportCollectionsChoose'
        : 'reports.exportCollections';
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
            {t(exportLabel)}
          </button>
          {x.running && x.progress && (
            <ProgressBar
              label={t(PHASE[x.progress.phase])}
              value={x.progress.done}
              {...(x.progress.total > 0 ? { max: x.progress.total } : {})}
              onCancel={x.cancel}
            />
          )}
        </div>
      </form>
      {x.unnamedError && <ErrorBanner error={x.unnamedError} title={t('reports.failed')} />}
      {x.notice && (
        <p role="status" className="warn-text">
          {say(x.notice)}
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
  const { t } = useWords();
  return (
    <>
      <div className="row">
        <Field label={t(rangeRequired ? 'reports.from' : 'reports.fromOptional')} error={x.fieldError('from')}>
          <DateField name="from" value={x.values.from} onChange={x.set.from} disabled={x.running} />
        </Field>
        <Field label={t(rangeRequired ? 'reports.to' : 'reports.toOptional')} error={x.fieldError('to')}>
          <DateField name="to" value={x.values.to} onChange={x.set.to} disabled={x.running} />
        </Field>
        <Field label={t('reports.format')} error={x.fieldError('format')}>
          <select
            name="format"
            value={x.values.format}
            onChange={(e) => x.set.format(e.target.value as ExportFormat)}
            disabled={x.running}
          >
            <option value="csv">{t('reports.format.csv')}</option>
            <option value="xlsx">{t('reports.format.xlsx')}</option>
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
          {t('reports.bom')}
        </label>
      )}
      {folder !== undefined && (
        <Field
          label={t('reports.fileName')}
          error={x.fieldError('fileName')}
          hint={t('reports.fileNameHint', { folder, format: x.values.format })}
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
  const { t, rich, f: fmt } = useWords();
  return (
    <div className="banner info result" role="status" aria-label={t('reports.result', { title })}>
      <div>
        <strong>{t('reports.rows', { rows: result.rows })}</strong>
        <ul>
          {result.files.map((f) => (
            <li key={f.path}>
              {rich('reports.file', {
                path: (
                  <span className="mono" translate="no">
                    {f.path}
                  </span>
                ),
                size: fmt.fileSize(f.bytes),
              })}
            </li>
          ))}
        </ul>
        {folder !== undefined && (
          <p className="as-of">
            {rich('reports.openFolder', {
              folder: (
                <span className="mono" translate="no">
                  {folder}
                </span>
              ),
              files: result.files.length,
            })}
          </p>
        )}
      </div>
    </div>
  );
}
