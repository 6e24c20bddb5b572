// CSV exports (balance report, collections). The destination is the shell's save dialog when it has one
// (Electron); otherwise (the Chromium shell) a path typed in the window, checked on field 'out' (absolute,
// .csv, existing folder, nothing overwritten). 'reports.target' says which, and the default folder.
// Progress arrives as 'reports.progress' events with the renderer's exportId; 'reports.cancel' stops an
// export and removes its partial file (the export then answers with error kind 'cancelled').
import { z } from 'zod';
import { channel, noRequest } from './define.js';

const ms = z.number().int().nonnegative();
const exportId = z.string().trim().min(1).max(64);

export const reportsExportRequest = z
  .object({
    exportId,
    kind: z.enum(['balances', 'collections']),
    from: ms.optional(),
    to: ms.optional(),
    bom: z.boolean().optional(),
    /** Only when the shell has no save dialog: an absolute path ending in .csv. */
    out: z.string().trim().min(1, 'enter where to save the file').max(4096).optional(),
  })
  .refine((r) => r.kind !== 'balances' || r.from !== undefined, { message: 'the balance report needs a start date', path: ['from'] })
  .refine((r) => r.kind !== 'balances' || r.to !== undefined, { message: 'the balance report needs an end date', path: ['to'] })
  .refine((r) => r.from === undefined || r.to === undefined || r.to > r.from, { message: 'must be after the start date', path: ['to'] });

const cancelRequest = z.object({ exportId });

export interface ExportTarget {
  /** True when the shell shows a save dialog (Electron); false: the window asks for a path. */
  canChoose: boolean;
  /** <data folder>/exports, the default place for a typed path. */
  defaultDir: string;
  /** The OS path separator, to join defaultDir and a file name. */
  sep: string;
}

export interface ExportedFile {
  path: string;
  bytes: number;
}

export type ExportOutcome =
  /** The balance report writes two files (summary + "-snapshots"); collections one. */
  | { status: 'done'; files: ExportedFile[]; rows: number }
  /** The user closed the save dialog without choosing a file. */
  | { status: 'no_file_chosen' };

export const reportsChannels = {
  /** Whether a save dialog is available, and the default folder for a typed path. */
  'reports.target': channel<typeof noRequest, ExportTarget>(noRequest),
  /** Balance report for [from, to) (both required) or collections created in [from, to) (all when omitted). */
  'reports.export': channel<typeof reportsExportRequest, ExportOutcome>(reportsExportRequest),
  'reports.cancel': channel<typeof cancelRequest, { cancelled: boolean }>(cancelRequest),
};

export type reportsEvents = {
  'reports.progress': { exportId: string; phase: 'starting' | 'reconciling' | 'writing'; done: number; total: number };
};
