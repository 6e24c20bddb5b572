// Payments (take a card payment) and collections (list, detail, callbacks import). The card arrives in
// payments.charge once; the schema here checks only its shape, the form rules run once in the charge
// service (card-input.shared.ts parseCharge, with the card option's limits), and its handler never logs the request.
import { z } from 'zod';
import { channel, noRequest } from './define.js';
import { noPath, plainFileName } from './file-name.js';
import { cardFormSchema } from '../../collections/card-input.shared.js';
import type { CardOptionView, ChargeOutcome } from '../../collections/charge/service.js';
import type { CollectionRow, EventRow } from '../../collections/query.js';
import type { ImportSummary } from '../../callbacks/import-jsonl.js';

export type { CardOptionView, ChargeOutcome, CollectionRow, EventRow, ImportSummary };

/** What a charge, a confirmation or a re-send answers: the collection as saved (null when nothing was) and what happened. */
export interface ChargeResponse {
  collection: CollectionRow | null;
  outcome: ChargeOutcome;
}

const STATUSES = ['INTENT', 'PENDING', 'REJECTED', 'UNKNOWN', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
const SORTABLE = ['created_at', 'amount', 'currency', 'status', 'reference', 'customer'] as const;
const ms = z.number().int().nonnegative();

const collectionsListRequest = z.object({
  status: z.union([z.enum(STATUSES), z.array(z.enum(STATUSES)).max(7)]).optional(),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'errors.zod.currencyCode')
    .optional(),
  from: ms.optional(),
  to: ms.optional(),
  text: z.string().trim().max(100).optional(),
  flagged: z.boolean().optional(),
  sort: z
    .object({ column: z.enum(SORTABLE), dir: z.enum(['asc', 'desc']) })
    .default({ column: 'created_at', dir: 'desc' }),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(100),
});

const collectionsGetRequest = z
  .object({ id: z.number().int().positive().optional(), reference: z.string().trim().min(1).max(100).optional() })
  .refine((r) => r.id !== undefined || r.reference !== undefined, {
    message: 'errors.zod.idOrReference',
    path: ['reference'],
  });

/**
 * The window's id for one operation (a charge, its confirmed repeat, a re-send): what main tells it about
 * that operation (payments.progress) carries it, so a screen follows its own payment and no other.
 */
const operationId = z.string().regex(/^[0-9a-f]{32}$/, 'errors.zod.operationId');
const chargeRequest = cardFormSchema.extend({ operationId: operationId.optional() });
const resendRequest = z.object({
  reference: z.string().trim().min(8).max(100),
  card: cardFormSchema.shape.card,
  operationId: operationId.optional(),
});
/**
 * Which callbacks file: `name`, a file in <data folder>/imports; `content`, the text of a file the person
 * picked in the window; neither, the shell's open dialog (Electron). Never a path.
 */
const importRequest = z
  .object({
    name: plainFileName.optional(),
    content: z
      .string()
      .max(64 * 1024 * 1024)
      .optional(),
    path: noPath,
  })
  .strict()
  .refine((r) => r.name === undefined || r.content === undefined, {
    message: 'errors.zod.nameOrContent',
    path: ['name'],
  });

export interface ImportFolder {
  /** True when the shell has an open dialog (Electron). */
  canChoose: boolean;
  /** <data folder>/imports: callbacks files saved there are listed by name (shown to the user, never sent back). */
  folder: string;
  files: { name: string; bytes: number; modifiedAt: number }[];
}
const token = z.object({ token: z.string().regex(/^[0-9a-f]{32}$/, 'errors.zod.token') });
const confirmRequest = token.extend({ operationId: operationId.optional() });

export const collectionsChannels = {
  /** Active card options with min, max, daily limit and today's collected total. */
  'payments.options': channel<typeof noRequest, CardOptionView[]>(noRequest),
  /**
   * The form, card included (once), and the window's operation id. Field errors come back as
   * {kind: 'validation', fields}.
   */
  'payments.charge': channel<typeof chargeRequest, ChargeResponse>(chargeRequest),
  /** Go ahead with a charge that answered needs_confirmation (same card and amount within minutes). */
  'payments.confirmRepeat': channel<typeof confirmRequest, ChargeResponse>(confirmRequest),
  'payments.cancelRepeat': channel<typeof token, null>(token),
  /** Re-send an UNKNOWN payment with the SAME reference; the agent types the same card again. */
  'payments.resend': channel<typeof resendRequest, ChargeResponse>(resendRequest),
  'collections.list': channel<typeof collectionsListRequest, { rows: CollectionRow[]; total: number }>(
    collectionsListRequest,
  ),
  'collections.get': channel<typeof collectionsGetRequest, { collection: CollectionRow; events: EventRow[] }>(
    collectionsGetRequest,
  ),
  /** The imports folder and the files in it (newest first), and whether an open dialog is available. */
  'callbacks.importFolder': channel<typeof noRequest, ImportFolder>(noRequest),
  /**
   * Import callbacks saved as JSON lines: a file of the imports folder by name, the text of a file the
   * person picked, or (neither) the shell's open dialog; 'chosen' is null when the dialog was closed.
   */
  'callbacks.import': channel<typeof importRequest, ImportSummary | { chosen: null }>(importRequest),
};

export type collectionsEvents = {
  /**
   * Collections changed: during a charge (PENDING: the payment window is open; window closed, redirect
   * captured), by a pulled batch of the team record, or refused by the team database. Notices that came
   * close together arrive merged (main/ipc/push.ts): `changed` lists at most 200 collections, each with
   * its newest status; `many`: more changed than it lists, so a screen re-reads what it shows once.
   */
  'collections.updated': { changed: { id: number; reference: string; status: string }[]; many: boolean };
  /**
   * The window's own operation moved (operations/charge.ts): from the moment its intent is recorded
   * (status INTENT: the card is on its way to the service), its reference and every status after. Only
   * ever about the collection that operation created or re-sent.
   */
  'payments.progress': { operationId: string; reference: string; status: string };
};
