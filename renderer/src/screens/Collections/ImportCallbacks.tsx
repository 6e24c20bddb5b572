// "Import callbacks": the agent picks a JSON-lines file (one saved callback per line, with its headers)
// in the window (the renderer reads its text), or picks by name a file saved in the app's imports folder
// (main reads it: the window never names a path). Main ingests it through the same path as the live
// receiver. On a team desk only back office and admins are offered it (an import is recorded team-first).
import { useRef, useState, type ReactElement, type RefObject } from 'react';
import type { ImportFolder, ImportSummary } from '../../../../main/ipc/contract/collections.js';
import { DeskError, invoke } from '../../desk.js';
import { ErrorBanner } from '../../ui/index.js';
import { useMay } from '../../role.js';
import { fileSize, formatDateTime } from '../../ui/format.js';

const MAX_BYTES = 64 * 1024 * 1024;

function lineText(r: ImportSummary['results'][number]): string | null {
  switch (r.result) {
    case 'malformed':
      // Main's message already names its line ("line 5 is not valid JSON", "line 7: ...").
      return r.message;
    case 'bad_signature':
      return `line ${r.line}: signature did not verify${r.reference ? ` (${r.reference})` : ''}: ${r.reason}`;
    default:
      return null;
  }
}

/** The import's state: a file read in the window, or one picked by name in the imports folder; its summary or error. */
function useImports(inputRef: RefObject<HTMLInputElement | null>) {
  const [busy, setBusy] = useState(false);
  const [summary, setSummary] = useState<{ file: string; s: ImportSummary }>();
  const [error, setError] = useState<DeskError | string>();
  const [folder, setFolder] = useState<ImportFolder>();

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError(undefined);
    setSummary(undefined);
    if (file.size > MAX_BYTES) {
      setError(
        `${file.name} is ${Math.ceil(file.size / 1048576)} MB; the import takes at most 64 MB. Split the file or use "merchant-desk import-callbacks FILE".`,
      );
      return;
    }
    setBusy(true);
    try {
      const content = await file.text();
      const s = await invoke('callbacks.import', { content });
      if (!('chosen' in s)) setSummary({ file: file.name, s });
    } catch (e) {
      setError(e instanceof DeskError ? e : `Could not read ${file.name}.`);
    } finally {
      setBusy(false);
      if (inputRef.current) inputRef.current.value = '';
    }
  };

  // Files saved in the imports folder, listed by main; the one picked is named, never a path.
  const openFolder = async () => {
    setError(undefined);
    setSummary(undefined);
    try {
      setFolder(await invoke('callbacks.importFolder', {}));
    } catch (e) {
      setError(e instanceof DeskError ? e : 'Could not list the imports folder.');
    }
  };
  const importNamed = async (name: string) => {
    setError(undefined);
    setBusy(true);
    try {
      const s = await invoke('callbacks.import', { name });
      if (!('chosen' in s)) {
        setSummary({ file: name, s });
        setFolder(undefined);
      }
    } catch (e) {
      setError(e instanceof DeskError ? e : `Could not import ${name}.`);
    } finally {
      setBusy(false);
    }
  };

  const dismiss = () => {
    setSummary(undefined);
    setError(undefined);
    setFolder(undefined);
  };
  return { busy, summary, error, folder, onFile, openFolder, importNamed, dismiss };
}

/**
 * The import button (for the screen header) and its result panel (for the page flow above the list, so
 * it never covers rows). One hook keeps them in step.
 */
export function useCallbackImport(): { button: ReactElement | null; result: ReactElement | null } {
  const may = useMay('importCallbacks');
  const inputRef = useRef<HTMLInputElement>(null);
  const imports = useImports(inputRef);
  if (!may) return { button: null, result: null };
  const { busy, summary, error, folder } = imports;
  const button = (
    <div className="import-callbacks">
      <button type="button" onClick={() => inputRef.current?.click()} disabled={busy}>
        {busy ? 'Importing…' : 'Import callbacks…'}
      </button>{' '}
      <button type="button" onClick={() => void imports.openFolder()} disabled={busy}>
        From imports folder…
      </button>
      <input
        ref={inputRef}
        type="file"
        name="callbacks-file"
        accept=".jsonl,.json,.ndjson,.txt,application/json,text/plain"
        className="sr-only"
        tabIndex={-1}
        aria-label="Callbacks file (JSON lines)"
        onChange={(e) => void imports.onFile(e.target.files?.[0])}
      />
    </div>
  );
  const result = folder ? (
    <FolderPanel
      folder={folder}
      busy={busy}
      error={error}
      onImport={(name) => void imports.importNamed(name)}
      onRefresh={() => void imports.openFolder()}
      onClose={imports.dismiss}
    />
  ) : summary || error ? (
    <ResultPanel summary={summary} error={error} onDismiss={imports.dismiss} />
  ) : null;
  return { button, result };
}

/** The files in the imports folder, each with its Import button; Escape closes it. */
function FolderPanel({
  folder,
  busy,
  error,
  onImport,
  onRefresh,
  onClose,
}: {
  folder: ImportFolder;
  busy: boolean;
  error: DeskError | string | undefined;
  onImport: (name: string) => void;
  onRefresh: () => void;
  onClose: () => void;
}) {
  return (
    <div
      className="import-result panel"
      role="region"
      aria-label="Imports folder"
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <p>
        Save callbacks files (JSON lines) in <span className="mono">{folder.folder}</span>, then pick one here.
      </p>
      {folder.files.length === 0 ? (
        <p className="as-of">The folder is empty.</p>
      ) : (
        <ul className="import-files">
          {folder.files.map((f) => (
            <li key={f.name}>
              <button type="button" onClick={() => onImport(f.name)} disabled={busy} aria-label={`Import ${f.name}`}>
                Import
              </button>{' '}
              <span className="mono">{f.name}</span> ({fileSize(f.bytes)}, {formatDateTime(f.modifiedAt)})
            </li>
          ))}
        </ul>
      )}
      <ErrorBanner error={error} title="Import failed" />
      <button type="button" onClick={onRefresh} disabled={busy}>
        Refresh
      </button>{' '}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/** What the import did (counts, then the first 20 lines it refused), or why it failed; Escape dismisses it. */
function ResultPanel({
  summary,
  error,
  onDismiss,
}: {
  summary: { file: string; s: ImportSummary } | undefined;
  error: DeskError | string | undefined;
  onDismiss: () => void;
}) {
  const problems = summary ? summary.s.results.map(lineText).filter((x): x is string => !!x) : [];
  return (
    <div
      className="import-result panel"
      role="status"
      aria-label="Import result"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDismiss();
      }}
    >
      <ErrorBanner error={error} title="Import failed" />
      {summary && (
        <>
          <p>
            <strong>{summary.file}</strong>: {summary.s.lines} lines · {summary.s.imported} imported ·{' '}
            {summary.s.duplicates} duplicates · {summary.s.orphans} for unknown references · {summary.s.badSignatures}{' '}
            bad signatures · {summary.s.malformed} malformed
          </p>
          {problems.length > 0 && (
            <ul className="import-problems">
              {problems.slice(0, 20).map((p) => (
                <li key={p}>{p}</li>
              ))}
              {problems.length > 20 && <li>…and {problems.length - 20} more</li>}
            </ul>
          )}
        </>
      )}
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
