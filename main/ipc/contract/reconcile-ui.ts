// Channels the Reconciliation and Reports screens need beyond reconcile.ts / reports.ts:
// - a full reconciliation the renderer can cancel (reconcile.run only stops when the window goes away);
// - exports to a path typed in the window when the shell has no save dialog (the Chromium shell), with
//   the written files' sizes, and their own cancel. Progress reuses 'reconcile.progress' and
//   'reports.progress' (the latter carries the exportId).
import { z } from 'zod';
import { channel, noRequest } from './define.js';

const ms = z.number().int().nonnegative();
const runId = z.string().trim().min(1).max(64);
const exportId = z.string().trim().min(1).max(64);

export const reconcileUiRunRequest = z.object({ runId });

export const reportsUiExportRequest = z
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

export type ExportUiOutcome = { status: 'done'; files: ExportedFile[]; rows: number } | { status: 'no_file_chosen' };

export const reconcileUiChannels = {
  /** Full recompute of every collection; progress as 'reconcile.progress'; cancel with reconcileUi.cancelRun. */
  'reconcileUi.run': channel<typeof reconcileUiRunRequest, { collections: number; exceptions: number }>(reconcileUiRunRequest),
  'reconcileUi.cancelRun': channel<typeof reconcileUiRunRequest, { cancelled: boolean }>(reconcileUiRunRequest),
  /** Whether a save dialog is available, and the default folder for a typed path. */
  'reportsUi.target': channel<typeof noRequest, ExportTarget>(noRequest),
  /** Balance or collections CSV; answers with each file's path and size. Cancelled -> error kind 'cancelled'. */
  'reportsUi.export': channel<typeof reportsUiExportRequest, ExportUiOutcome>(reportsUiExportRequest),
  'reportsUi.cancel': channel<z.ZodObject<{ exportId: typeof exportId }>, { cancelled: boolean }>(z.object({ exportId })),
};
