// "Import callbacks": the agent picks a JSON-lines file (one saved callback per line, with its headers)
// in the window (the renderer reads its text), or picks by name a file saved in the app's imports folder
// (main reads it: the window never names a path). Main ingests it through the same path as the live
// receiver. On a team desk only back office and admins are offered it (an import is recorded team-first).
import { useRef, useState, type ReactElement, type RefObject } from 'react';
import type { ImportFolder, ImportSummary } from '../../../../main/ipc/contract/collections.js';
import { DeskError, invoke } from '../../desk.js';
import { ErrorBanner } from '../../ui/index.js';
import { useMay } from '../../role.js';
import { useWords, type Say } from '../../words/index.js';
import { words, type Words } from '../../../../main/words/words.shared.js';

const MAX_BYTES = 64 * 1024 * 1024;

function lineText(t: Say['t'], r: ImportSummary['results'][number]): string | null {
  // What the line held wrong, and why its signature did not verify, are the check's own words: said as they are.
  switch (r.result) {
    case 'malformed':
      // Main's message already names its line ("line 5 is not valid JSON", "line 7: ...").
      return r.message;
    case 'bad_signature':
      return r.reference
        ? t('collections.import.lineSignatureRef', { line: r.line, reference: r.reference, reason: r.reason })
        : t('collections.import.lineSignature', { line: r.line, reason: r.reason });
    default:
      return null;
  }
}

/** The import's state: a file read in the window, or one picked by name in the imports folder; its summary or error. */
function useImports(inputRef: RefObject<HTMLInputElement | null>) {
  const [busy, setBusy] = useState(false);
  const [summary, setSummary] = useState<{ file: string; s: ImportSummary }>();
  const [error, setError] = useState<DeskError | Words>();
  const [folder, setFolder] = useState<ImportFolder>();

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError(undefined);
    setSummary(undefined);
    if (file.size > MAX_BYTES) {
      setError(words('collections.import.tooLarge', { name: file.name, mb: Math.ceil(file.size / 1048576) }));
      return;
    }
    setBusy(true);
    try {
      const content = await file.text();
      const s = await invoke('callbacks.import', { content });
      if (!('chosen' in s)) setSummary({ file: file.name, s });
    } catch (e) {
      setError(e instanceof DeskError ? e : words('collections.import.cannotRead', { name: file.name }));
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
      setError(e instanceof DeskError ? e : words('collections.import.cannotList'));
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
      setError(e instanceof DeskError ? e : words('collections.import.cannotImport', { name }));
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
  const { t } = useWords();
  if (!may) return { button: null, result: null };
  const { busy, summary, error, folder } = imports;
  const button = (
    <div className="import-callbacks">
      <button type="button" onClick={() => inputRef.current?.click()} disabled={busy}>
        {t(busy ? 'collections.import.importing' : 'collections.import.button')}
      </button>{' '}
      <button type="button" onClick={() => void imports.openFolder()} disabled={busy}>
        {t('collections.import.fromFolder')}
      </button>
      <input
        ref={inputRef}
        type="file"
        name="callbacks-file"
        accept=".jsonl,.json,.ndjson,.txt,application/json,text/plain"
        className="sr-only"
        tabIndex={-1}
        aria-label={t('collections.import.fileLabel')}
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
  error: DeskError | Words | undefined;
  onImport: (name: string) => void;
  onRefresh: () => void;
  onClose: () => void;
}) {
  const { t, rich, f: fmt } = useWords();
  return (
    <div
      className="import-result panel"
      role="region"
      aria-label={t('collections.import.folder')}
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <p>
        {rich('collections.import.saveIn', {
          folder: (
            <span className="mono" translate="no">
              {folder.folder}
            </span>
          ),
        })}
      </p>
      {folder.files.length === 0 ? (
        <p className="as-of">{t('collections.import.empty')}</p>
      ) : (
        <ul className="import-files">
          {folder.files.map((f) => (
            <li key={f.name}>
              <button
                type="button"
                onClick={() => onImport(f.name)}
                disabled={busy}
                aria-label={t('collections.import.importName', { name: f.name })}
              >
                {t('collections.import.import')}
              </button>{' '}
              <span className="mono" translate="no">
                {f.name}
              </span>{' '}
              {t('collections.import.fileFacts', { size: fmt.fileSize(f.bytes), modifiedAt: f.modifiedAt })}
            </li>
          ))}
        </ul>
      )}
      <ErrorBanner error={error} title={t('collections.import.failed')} />
      <button type="button" onClick={onRefresh} disabled={busy}>
        {t('collections.import.refresh')}
      </button>{' '}
      <button type="button" onClick={onClose}>
        {t('collections.import.close')}
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
  error: DeskError | Words | undefined;
  onDismiss: () => void;
}) {
  const { t } = useWords();
  const problems = summary ? summary.s.results.map((r) => lineText(t, r)).filter((x): x is string => !!x) : [];
  return (
    <div
      className="import-result panel"
      role="status"
      aria-label={t('collections.import.result')}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDismiss();
      }}
    >
      <ErrorBanner error={error} title={t('collections.import.failed')} />
      {summary && (
        <>
          <p>
            <strong translate="no">{summary.file}</strong>:{' '}
            {t('collections.import.summary', {
              lines: summary.s.lines,
              imported: summary.s.imported,
              duplicates: summary.s.duplicates,
              orphans: summary.s.orphans,
              bad: summary.s.badSignatures,
              malformed: summary.s.malformed,
            })}
          </p>
          {problems.length > 0 && (
            <ul className="import-problems">
              {problems.slice(0, 20).map((p) => (
                <li key={p}>{p}</li>
              ))}
              {problems.length > 20 && <li>{t('collections.import.more', { n: problems.length - 20 })}</li>}
            </ul>
          )}
        </>
      )}
      <button type="button" onClick={onDismiss}>
        {t('collections.import.dismiss')}
      </button>
    </div>
  );
}
