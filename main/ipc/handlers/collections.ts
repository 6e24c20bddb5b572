// Payments and collections handlers. The payment handlers are adapters over the payment operations
// (main/operations/charge.ts). The charge request carries the card: it is passed to the charge service
// (which overwrites its fields) and is never logged here; dispatch logs no requests. The charge service
// and the verification keys are the active workspace's (main/app/workspace.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../../app/core.js';
import type { collectionsChannels } from '../contract/collections.js';
import type { HandlersFor } from './types.js';
import { getCollection, listCollections } from '../../collections/query.js';
import { PaymentError } from '../../collections/errors.js';
import { checkImport, importCallbacks, type ImportCallbacksDeps } from '../../operations/import-callbacks.js';
import { dataPaths } from '../../settings/paths.js';
import { isPlainFileName } from '../contract/file-name.js';
import {
  cancelRepeatCharge,
  chargeCard,
  confirmRepeatCharge,
  resendPayment,
  type ChargeOperationDeps,
} from '../../operations/charge.js';

/** Where callbacks files are saved for import when the shell has no open dialog (made on first use). */
function importsDir(core: Pick<Core, 'dataDir'>): string {
  const dir = dataPaths(core.dataDir).imports;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

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

/** What these handlers call on the desk: named, not the whole Core. */
export type CollectionsDeps = Pick<
  Core,
  | 'charges'
  | 'chooseOpenPath'
  | 'clock'
  | 'dataDir'
  | 'db'
  | 'events'
  | 'ledger'
  | 'recordTeamFirst'
  | 'settings'
  | 'verificationKeys'
>;

export const collectionsHandlers = (core: CollectionsDeps): HandlersFor<typeof collectionsChannels> => {
  // The payment operations (operations/charge.ts) on the active profile's charge service, read per call
  // (a profile switch replaces it); what they tell the window goes out as payments.progress.
  const payments = (): ChargeOperationDeps => ({
    service: core.charges(),
    progress: (p) => core.events.emit('payment.progress', p),
  });
  return {
    'payments.options': () => core.charges().options(),
    'payments.charge': ({ operationId, ...form }, ctx) =>
      chargeCard(payments(), { operationId, form }, { signal: ctx.signal }),
    'payments.confirmRepeat': (r, ctx) => confirmRepeatCharge(payments(), r, { signal: ctx.signal }),
    'payments.cancelRepeat': (r) => cancelRepeatCharge(payments(), r),
    'payments.resend': (r, ctx) => resendPayment(payments(), r, { signal: ctx.signal }),
    'collections.list': (q) => listCollections(core.db, q),
    'collections.get': (q) => {
      const got = getCollection(core.db, q.id ?? q.reference!);
      if (!got)
        throw new PaymentError(
          'not_found',
          `No payment ${q.id !== undefined ? `#${q.id}` : q.reference}.`,
          q.id !== undefined ? 'id' : 'reference',
        );
      return got;
    },
    'callbacks.importFolder': () => ({
      canChoose: Boolean(core.chooseOpenPath),
      folder: importsDir(core),
      files: listImportFiles(importsDir(core)),
    }),
    // The import's rules are operations/import-callbacks.ts: this chooses the file and names what it needs.
    'callbacks.import': async (r, ctx) => {
      const deps: ImportCallbacksDeps = {
        db: core.db,
        clock: core.clock,
        ledger: core.ledger,
        keys: core.verificationKeys(),
        team:
          core.settings().profile === 'team' ? { recordFirst: (evs, what) => core.recordTeamFirst(evs, what) } : null,
      };
      checkImport(deps); // before a dialog asks for a file
      // Which file: one of the imports folder by plain name, or the shell's open dialog; never a path
      // from the renderer (the contract refuses one).
      let file: string | null = null;
      if (r.name !== undefined) {
        file = importFileIn(importsDir(core), r.name);
      } else if (r.content === undefined) {
        if (!core.chooseOpenPath)
          throw new PaymentError('validation', `choose a file saved in ${importsDir(core)}`, 'name');
        file = await core.chooseOpenPath({
          title: 'Import callbacks',
          filters: [{ name: 'JSON lines', extensions: ['jsonl', 'ndjson', 'json', 'txt'] }],
        });
        if (file === null) return { chosen: null };
      }
      const summary = await importCallbacks(
        deps,
        file !== null ? { file } : { text: r.content ?? '' },
        ctx.signal ? { signal: ctx.signal } : {},
      );
      core.events.emit('callbacks.ingested', { result: 'import', reference: null });
      return summary;
    },
  };
};
