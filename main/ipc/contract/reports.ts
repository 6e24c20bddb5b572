// CSV exports. The destination comes from the shell's save dialog (never from the renderer); progress
// arrives as 'reports.progress' events with the renderer's exportId; 'reports.cancel' stops an export
// and removes its partial file (the export then answers with error kind 'cancelled').
import { z } from 'zod';
import { channel } from './define.js';

const ms = z.number().int().nonnegative();
const exportId = z.string().trim().min(1).max(64);

export const exportBalancesRequest = z
  .object({ exportId, from: ms, to: ms, bom: z.boolean().optional() })
  .refine((r) => r.to > r.from, { message: 'must be after from', path: ['to'] });

export const exportCollectionsRequest = z
  .object({ exportId, from: ms.optional(), to: ms.optional(), bom: z.boolean().optional() })
  .refine((r) => r.from === undefined || r.to === undefined || r.to > r.from, { message: 'must be after from', path: ['to'] });

const cancelRequest = z.object({ exportId });

export type ExportOutcome =
  | { status: 'done'; files: string[]; rows: number }
  /** The user closed the save dialog without choosing a file. */
  | { status: 'no_file_chosen' };

export const reportsChannels = {
  /** Balance report (summary file + "-snapshots" file) for [from, to). */
  'reports.exportBalances': channel<typeof exportBalancesRequest, ExportOutcome>(exportBalancesRequest),
  /** Collections report for created_at in [from, to) (all when omitted). */
  'reports.exportCollections': channel<typeof exportCollectionsRequest, ExportOutcome>(exportCollectionsRequest),
  'reports.cancel': channel<typeof cancelRequest, { cancelled: boolean }>(cancelRequest),
};

export type reportsEvents = {
  'reports.progress': { exportId: string; phase: 'starting' | 'reconciling' | 'writing'; done: number; total: number };
};
