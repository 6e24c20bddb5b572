// What a shell offers the desk: its kind, and the native dialogs it may have (Electron has them; the
// Chromium shell and the CLI have none). The shell sets the dialogs on the Core after composeCore; an
// operation that needs one reads it at call time and refuses, or falls back to a folder of the data
// folder, when there is none.

export type ShellKind = 'electron' | 'chromium' | 'none';

/** A native open dialog: the chosen file, or null when the person cancelled. */
export type OpenPathChooser = (o: {
  title: string;
  filters: { name: string; extensions: string[] }[];
}) => Promise<string | null>;

/** Asks the person at the machine, in the main process (a native dialog), never through the renderer. */
export type MainConfirm = (o: { title: string; message: string; detail: string }) => Promise<boolean>;

/** A native save dialog: the chosen path, or null when the person cancelled. */
export type SavePathChooser = (o: {
  title: string;
  defaultName: string;
  filters: { name: string; extensions: string[] }[];
}) => Promise<string | null>;
