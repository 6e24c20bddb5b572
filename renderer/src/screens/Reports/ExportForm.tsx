// One export: date range, BOM option, where to save (the shell's dialog, or a file name in the app's
// exports folder: the window never names a path), a progress bar with Cancel while it runs, the result
// (path, rows, size, the folder to open) when done, and errors named on their fields.
import { useId, useState } from 'react';
import type { ExportOutcome, ExportTarget } from '../../../../main/ipc/contract/reports.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { DeskError, invoke } from '../../desk.js';
import { useDeskEvent } from '../../hooks.js';
import { ErrorBanner, Field, ProgressBar } from '../../ui/index.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { fileSize } from '../../ui/format.js';

type Kind = 'balances' | 'collections';
type Progress = { phase: 'starting' | 'reconciling' | 'writing'; done: number; total: number };

const PHASE: Record<Progress['phase'], string> = {
  starting: 'Starting',
  reconciling: 'Reconciling before export',
  writing: 'Writing rows',
};

function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

function defaultFileName(kind: Kind, from: string, to: string, at: string): string {
  const range = from && to ? `-${from}-to-${to}` : from ? `-from-${from}` : to ? `-to-${to}` : '';
  return `${kind}${range}-${at}.csv`;
}

export function ExportForm({
  kind,
  title,
  target,
  rangeRequired,
  initialFrom = '',
  initialTo = '',
  description,
}: {
  kind: Kind;
  title: string;
  target: ExportTarget | undefined;
  rangeRequired: boolean;
  initialFrom?: string;
  initialTo?: string;
  description: string;
}) {
  const headingId = useId();
  const [from, setFrom] = useState(initialFrom);
  const [to, setTo] = useState(initialTo);
  const [bom, setBom] = useState(false);
  const [typedName, setName] = useState('');
  const [nameEdited, setNameEdited] = useState(false);
  const [at, setAt] = useState(() => stamp());
  const [running, setRunning] = useState<string | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [result, setResult] = useState<Extract<ExportOutcome, { status: 'done' }> | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<DeskError | null>(null);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const typed = target !== undefined && !target.canChoose;

  // The default name follows the dates until the user types their own.
  const fileName = nameEdited ? typedName : typed ? defaultFileName(kind, from, to, at) : '';

  useDeskEvent('reports.progress', (p) => {
    if (running && p.exportId === running) setProgress({ phase: p.phase, done: p.done, total: p.total });
  });

  const fieldError = (name: string) =>
    localErrors[name] ?? error?.fields?.[name] ?? (error?.field === name ? error.message : undefined);

  const start = async () => {
    setResult(null);
    setNotice(null);
    setError(null);
    const f = dayStart(from);
    const t = dayEnd(to);
    const errs: Record<string, string> = {};
    if (rangeRequired && f === undefined) errs.from = 'Choose the first day of the report.';
    if (rangeRequired && t === undefined) errs.to = 'Choose the last day of the report.';
    if (f !== undefined && t !== undefined && t <= f) errs.to = 'The last day must be on or after the first day.';
    if (typed && !fileName.trim()) errs.fileName = 'Enter a file name ending in .csv.';
    setLocalErrors(errs);
    if (Object.keys(errs).length) return;
    const exportId = `${kind}-${Date.now().toString(36)}`;
    const req: RequestOf<'reports.export'> = { exportId, kind, bom };
    if (f !== undefined) req.from = f;
    if (t !== undefined) req.to = t;
    if (typed) req.fileName = fileName.trim();
    setRunning(exportId);
    setProgress({ phase: 'starting', done: 0, total: 0 });
    try {
      const r = await invoke('reports.export', req);
      if (r.status === 'done') {
        setResult(r);
        setAt(stamp());
      } else setNotice('No file was chosen; nothing was exported.');
    } catch (e) {
      const de =
        e instanceof DeskError
          ? e
          : new DeskError({ kind: 'internal', message: 'The export failed; the details are in the log.' });
      if (de.kind === 'cancelled') setNotice('Export cancelled; the partial file was removed.');
      else setError(de);
    } finally {
      setRunning(null);
      setProgress(null);
    }
  };

  const cancel = () => {
    if (running) void invoke('reports.cancel', { exportId: running }).catch(() => {});
  };

  const unnamed = error && !['from', 'to', 'fileName'].some((n) => fieldError(n));
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className="as-of">{description}</p>
      <form
        aria-label={title}
        className="export-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <div className="row">
          <Field label={rangeRequired ? 'From' : 'From (optional)'} error={fieldError('from')}>
            <input
              type="date"
              name="from"
              value={from}
              onChange={(e) => setFrom(e.target.value)}
              disabled={running !== null}
            />
          </Field>
          <Field label={rangeRequired ? 'To' : 'To (optional)'} error={fieldError('to')}>
            <input
              type="date"
              name="to"
              value={to}
              onChange={(e) => setTo(e.target.value)}
              disabled={running !== null}
            />
          </Field>
        </div>
        <label className="check">
          <input
            type="checkbox"
            name="bom"
            checked={bom}
            onChange={(e) => setBom(e.target.checked)}
            disabled={running !== null}
          />
          Add a byte-order mark (for Excel)
        </label>
        {typed && target && (
          <Field
            label="File name"
            error={fieldError('fileName')}
            hint={`Saved in ${target.folder}. A name only, ending in .csv; nothing is overwritten.`}
          >
            <input
              type="text"
              name="fileName"
              className="path-input"
              value={fileName}
              spellCheck={false}
              onChange={(e) => {
                setName(e.target.value);
                setNameEdited(true);
              }}
              disabled={running !== null}
            />
          </Field>
        )}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={running !== null || target === undefined}>
            {target?.canChoose
              ? `Export ${kind === 'balances' ? 'balance report' : 'collections'}…`
              : `Export ${kind === 'balances' ? 'balance report' : 'collections'}`}
          </button>
          {running && progress && (
            <ProgressBar
              label={PHASE[progress.phase]}
              value={progress.done}
              {...(progress.total > 0 ? { max: progress.total } : {})}
              onCancel={cancel}
            />
          )}
        </div>
      </form>
      {unnamed && <ErrorBanner error={error} title="Export failed" />}
      {notice && (
        <p role="status" className="warn-text">
          {notice}
        </p>
      )}
      {result && (
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
            {typed && target && (
              <p className="as-of">
                Open <span className="mono">{target.folder}</span> in your file manager to find{' '}
                {result.files.length === 1 ? 'it' : 'them'}.
              </p>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
