// Payments and collections handlers: adapters over the payment operations (main/operations/charge.ts) and
// the callbacks import (main/operations/import-callbacks.ts), bound to the desk (app/desk-operations.ts),
// and the collections' reads (app/desk-queries.ts). The charge request carries the card: it is passed to
// the charge service (which overwrites its fields) and is never logged here; dispatch logs no requests.
import fs from 'node:fs';
import path from 'node:path';
import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { collectionsChannels } from '../contract/collections.js';
import type { HandlersFor } from './types.js';
import { PaymentError } from '../../collections/errors.js';
import type { ImportSource } from '../../operations/import-callbacks.js';
import { isPlainFileName } from '../contract/file-name.js';

/** Regular files of the imports folder (links and folders left out), newest first. */
function listImportFiles(dir: string): { name: string; bytes: number; modifiedAt: number }[] {
  const out: { name: string; bytes: number; modifiedAt: number }[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!e.isFile() || !isPlainFileName(e.name)) continue;
    const st = fs.statSync(path.join(dir, e.name), { throwIfNoEntry: false });
    if (st) out.push({ name: e.name, bytes: st.size, modifiedAt: st.mtimeMs });
  }
  return out.sort((a, b) => b.modifiedAt - a.modifiedAt || a.name.localeCompare(b.name));
}

/** The file `name` of the imports folder: a plain name (checked again here), a regular file, not a link out. */
function importFileIn(dir: string, name: string): string {
  if (!isPlainFileName(name))
    throw new PaymentError('validation', 'must be the name of a file in the imports folder', 'name');
  const file = path.join(dir, name);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) throw new PaymentError('validation', `${name} is not a file in ${dir}`, 'name');
  return file;
}

/** What these handlers call on the desk. */
export type CollectionsOperations = Pick<
  Operations,
  'cancelRepeatCharge' | 'chargeCard' | 'confirmRepeatCharge' | 'importCallbacks' | 'openDialog' | 'resendPayment'
>;
export type CollectionsQueries = Pick<Queries, 'chargeOptions' | 'collection' | 'collections' | 'importsFolder'>;

export const collectionsHandlers = (
  ops: CollectionsOperations,
  q: CollectionsQueries,
): HandlersFor<typeof collectionsChannels> => ({
  'payments.options': () => q.chargeOptions(),
  'payments.charge': ({ operationId, ...form }, ctx) => ops.chargeCard({ operationId, form }, { signal: ctx.signal }),
  'payments.confirmRepeat': (r, ctx) => ops.confirmRepeatCharge(r, { signal: ctx.signal }),
  'payments.cancelRepeat': (r) => ops.cancelRepeatCharge(r),
  'payments.resend': (r, ctx) => ops.resendPayment(r, { signal: ctx.signal }),
  'collections.list': (r) => q.collections(r),
  'collections.get': (r) => {
    const got = q.collection(r.id ?? r.reference!);
    if (!got)
      throw new PaymentError(
        'not_found',
        `No payment ${r.id !== undefined ? `#${r.id}` : r.reference}.`,
        r.id !== undefined ? 'id' : 'reference',
      );
    return got;
  },
  'callbacks.importFolder': () => ({
    canChoose: Boolean(ops.openDialog()),
    folder: q.importsFolder(),
    files: listImportFiles(q.importsFolder()),
  }),
  // The import's rules are operations/import-callbacks.ts: this chooses the file, once they allow it.
  'callbacks.import': async (r, ctx) => {
    // Which file: one of the imports folder by plain name, or the shell's open dialog; never a path
    // from the renderer (the contract refuses one).
    const choose = async (): Promise<ImportSource | null> => {
      if (r.name !== undefined) return { file: importFileIn(q.importsFolder(), r.name) };
      if (r.content !== undefined) return { text: r.content };
      const dialog = ops.openDialog();
      if (!dialog) throw new PaymentError('validation', `choose a file saved in ${q.importsFolder()}`, 'name');
      const file = await dialog({
        title: 'Import callbacks',
        filters: [{ name: 'JSON lines', extensions: ['jsonl', 'ndjson', 'json', 'txt'] }],
      });
      return file === null ? null : { file };
    };
    const summary = await ops.importCallbacks(choose, { signal: ctx.signal });
    return summary ?? { chosen: null };
  },
});
