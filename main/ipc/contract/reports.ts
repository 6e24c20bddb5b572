// Report exports (balance report, collections) as CSV or as an .xlsx workbook. The destination is the shell's save dialog when it has one
// (Electron); otherwise (the Chromium shell) a file in <data folder>/exports, named by the renderer with a
// plain file name only (field 'fileName'; nothing overwritten) or by main from the dates. The renderer
// never sends a path. 'reports.target' says which, and the folder.
// Progress arrives as 'reports.progress' events with the renderer's exportId; 'reports.cancel' stops an
// export and removes its partial file (the export then answers with error kind 'cancelled').
import { z } from 'zod';
import { channel, noRequest } from './define.js';
import { noPath, plainFileName } from './file-name.js';

const ms = z.number().int().nonnegative();
const exportId = z.string().trim().min(1).max(64);

const reportsExportRequest = z
  .object({
    exportId,
    kind: z.enum(['balances', 'collections']),
    from: ms.optional(),
    to: ms.optional(),
    /** Default 'csv'. */
    format: z.enum(['csv', 'xlsx']).optional(),
    /** CSV only. */
    bom: z.boolean().optional(),
    /** Only when the shell has no save dialog: a plain name ending in .csv (.xlsx for a workbook), saved in the exports folder. Default: from the dates. */
    fileName: plainFileName.optional(),
    out: noPath,
    path: noPath,
  })
  .strict()
  .refine((r) => r.kind !== 'balances' || r.from !== undefined, {
    message: 'errors.zod.balanceFrom',
    path: ['from'],
  })
  .refine((r) => r.kind !== 'balances' || r.to !== undefined, {
    message: 'errors.zod.balanceTo',
    path: ['to'],
  })
  .refine((r) => r.from === undefined || r.to === undefined || r.to > r.from, {
    message: 'errors.zod.afterStart',
    path: ['to'],
  })
  .superRefine((r, ctx) => {
    const ext = `.${r.format ?? 'csv'}`;
    if (r.fileName !== undefined && !r.fileName.toLowerCase().endsWith(ext))
      ctx.addIssue({
        code: 'custom',
        message: r.format === 'xlsx' ? 'errors.zod.xlsxName' : 'errors.zod.csvName',
        path: ['fileName'],
      });
  })
  .refine((r) => r.format !== 'xlsx' || !r.bom, {
    message: 'errors.zod.bomCsvOnly',
    path: ['bom'],
  });

const cancelRequest = z.object({ exportId });

export interface ExportTarget {
  /** True when the shell shows a save dialog (Electron); false: files go to `folder`, named by a plain file name. */
  canChoose: boolean;
  /** <data folder>/exports, where files go without a save dialog (shown to the user, never sent back). */
  folder: string;
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
  /** Whether a save dialog is available, and the folder files go to without one. */
  'reports.target': channel<typeof noRequest, ExportTarget>(noRequest),
  /** Balance report for [from, to) (both required) or collections created in [from, to) (all when omitted). */
  'reports.export': channel<typeof reportsExportRequest, ExportOutcome>(reportsExportRequest),
  'reports.cancel': channel<typeof cancelRequest, { cancelled: boolean }>(cancelRequest),
};

export type reportsEvents = {
  'reports.progress': { exportId: string; phase: 'starting' | 'reconciling' | 'writing'; done: number; total: number };
};
