// One export's state: its dates, format (CSV or an .xlsx workbook), BOM (CSV) and file name (a default
// that follows the dates and the format until the user types their own; a typed name follows the format), the checks before it is asked for, main's progress while it runs (reports.progress), Cancel,
// and how it ended (the files, nothing chosen, cancelled, or an error named on its field).
import { useState } from 'react';
import type { ExportOutcome, ExportTarget } from '../../../../main/ipc/contract/reports.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { DeskError, invoke, windowFault } from '../../desk.js';
import { useDeskEvent } from '../../hooks.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { fieldErrorText } from '../../desk.js';
import { useWords } from '../../words/index.js';
import { words, type Words } from '../../../../main/words/words.shared.js';

export type ExportKind = 'balances' | 'collections';
export type ExportFormat = 'csv' | 'xlsx';
export type Progress = { phase: 'starting' | 'reconciling' | 'writing'; done: number; total: number };
export type ExportDone = Extract<ExportOutcome, { status: 'done' }>;

function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

function defaultFileName(kind: ExportKind, from: string, to: string, at: string, format: ExportFormat): string {
  const range = from && to ? `-${from}-to-${to}` : from ? `-from-${from}` : to ? `-to-${to}` : '';
  return `${kind}${range}-${at}.${format}`;
}

/** A typed name with the other format's extension takes this one's ("june.csv" -> "june.xlsx"). */
function withExtension(name: string, format: ExportFormat): string {
  return name.replace(/\.(csv|xlsx)$/i, `.${format}`);
}

/** The problems to fix before asking main, by field; none: the request to send. */
function checkExport(
  o: {
    kind: ExportKind;
    from: string;
    to: string;
    format: ExportFormat;
    bom: boolean;
    rangeRequired: boolean;
    fileName: string | null;
  },
  exportId: string,
): { errors: Record<string, Words>; request: RequestOf<'reports.export'> } {
  const f = dayStart(o.from);
  const t = dayEnd(o.to);
  const errors: Record<string, Words> = {};
  if (o.rangeRequired && f === undefined) errors.from = words('reports.chooseFirst');
  if (o.rangeRequired && t === undefined) errors.to = words('reports.chooseLast');
  if (f !== undefined && t !== undefined && t <= f) errors.to = words('reports.lastAfterFirst');
  if (o.fileName !== null && !o.fileName.trim()) errors.fileName = words('reports.nameNeeded', { format: o.format });
  const request: RequestOf<'reports.export'> = { exportId, kind: o.kind, format: o.format };
  if (o.format === 'csv') request.bom = o.bom;
  if (f !== undefined) request.from = f;
  if (t !== undefined) request.to = t;
  if (o.fileName !== null) request.fileName = o.fileName.trim();
  return { errors, request };
}

export function useExport(o: {
  kind: ExportKind;
  target: ExportTarget | undefined;
  rangeRequired: boolean;
  initialFrom: string;
  initialTo: string;
}) {
  const [from, setFrom] = useState(o.initialFrom);
  const [to, setTo] = useState(o.initialTo);
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [bom, setBom] = useState(false);
  const [typedName, setTypedName] = useState<string | null>(null);
  const [at, setAt] = useState(() => stamp());
  const [running, setRunning] = useState<string | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [result, setResult] = useState<ExportDone | null>(null);
  const [notice, setNotice] = useState<Words | null>(null);
  const [error, setError] = useState<DeskError | null>(null);
  const [localErrors, setLocalErrors] = useState<Record<string, Words>>({});
  const { say } = useWords();
  /** A file name is typed (not chosen in the shell's dialog). */
  const typed = o.target !== undefined && !o.target.canChoose;
  // The default name follows the dates until the user types their own.
  const fileName = typedName ?? (typed ? defaultFileName(o.kind, from, to, at, format) : '');

  useDeskEvent('reports.progress', (p) => {
    if (running && p.exportId === running) setProgress({ phase: p.phase, done: p.done, total: p.total });
  });

  const start = async () => {
    setResult(null);
    setNotice(null);
    setError(null);
    const exportId = `${o.kind}-${Date.now().toString(36)}`;
    const { errors, request } = checkExport(
      { kind: o.kind, from, to, format, bom, rangeRequired: o.rangeRequired, fileName: typed ? fileName : null },
      exportId,
    );
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    setRunning(exportId);
    setProgress({ phase: 'starting', done: 0, total: 0 });
    try {
      const r = await invoke('reports.export', request);
      if (r.status === 'done') {
        setResult(r);
        setAt(stamp());
      } else setNotice(words('reports.notChosen'));
    } catch (e) {
      const de = e instanceof DeskError ? e : windowFault('reports.export');
      if (de.kind === 'cancelled') setNotice(words('reports.cancelled'));
      else setError(de);
    } finally {
      setRunning(null);
      setProgress(null);
    }
  };

  const fieldError = (name: string): string | undefined =>
    localErrors[name] ? say(localErrors[name]) : fieldErrorText(say, error, name);
  return {
    values: { from, to, format, bom, fileName },
    set: {
      from: setFrom,
      to: setTo,
      format: (f: ExportFormat) => {
        setFormat(f);
        if (typedName !== null) setTypedName(withExtension(typedName, f));
      },
      bom: setBom,
      fileName: setTypedName,
    },
    typed,
    running: running !== null,
    progress,
    result,
    notice,
    /** The error when it names none of the form's fields. */
    unnamedError: error && !['from', 'to', 'format', 'bom', 'fileName'].some((n) => fieldError(n)) ? error : null,
    fieldError,
    start,
    cancel: () => {
      if (running) void invoke('reports.cancel', { exportId: running }).catch(() => {});
    },
  };
}
