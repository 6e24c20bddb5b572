// Payments and collections handlers. The charge request carries the card: it is passed to the charge
// service (which overwrites its fields) and is never logged here; dispatch logs no requests.
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../../app/core.js';
import type { collectionsChannels } from '../contract/collections.js';
import type { HandlersFor } from './types.js';
import { createChargeService, type ChargeService } from '../../collections/charge.js';
import { getCollection, listCollections, listOrphans } from '../../collections/query.js';
import { PaymentError } from '../../collections/errors.js';
import { importCallbacksJsonl, importCallbacksText } from '../../callbacks/import-jsonl.js';
import type { CollectionRow } from '../../collections/query.js';
import { dataPaths } from '../../settings/paths.js';
import { isPlainFileName } from '../contract/file-name.js';

/** Where callbacks files are saved for import when the shell has no open dialog (made on first use). */
export function importsDir(core: Pick<Core, 'dataDir'>): string {
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
  if (!isPlainFileName(name)) throw new PaymentError('validation', 'must be the name of a file in the imports folder', 'name');
  const file = path.join(dir, name);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) throw new PaymentError('validation', `${name} is not a file in ${dir}`, 'name');
  return file;
}

async function signingKey(core: Core): Promise<string | null> {
  try {
    return await core.secrets().get('signing-key');
  } catch {
    return null; // keychain unavailable: RSA alone can still verify
  }
}

/**
 * One charge service per Core and profile database (it holds the repeat guard and pending confirmations in
 * memory, and writes to the database it was made with): switching profile disposes it and the next call
 * makes one on the new profile's database.
 */
const services = new WeakMap<Core, { db: Core['db']; service: ChargeService }>();
export function chargeServiceFor(core: Core): ChargeService {
  let entry = services.get(core);
  if (entry && entry.db !== core.db) {
    entry.service.dispose();
    entry = undefined;
  }
  if (!entry) {
    const first = !services.has(core);
    const emit = (c: CollectionRow) => core.events.emit('collections.updated', { id: c.id, reference: c.merchantReference, status: c.status });
    const service = createChargeService({
      db: core.db,
      // A charge made while the embedded sandbox is still starting waits for it.
      getClient: async () => {
        await core.ready();
        return core.getClient();
      },
      getServicePublicKeyPem: () => core.servicePublicKeyPem(),
      getSigningKey: () => signingKey(core),
      clock: core.clock,
      paymentWindow: () => core.paymentWindow,
      redirectUrl: () => core.settings().redirectUrl,
      operator: () => core.settings().operatorName,
      logger: core.logger,
      onUpdate: emit,
    });
    entry = { db: core.db, service };
    services.set(core, entry);
    if (first) core.onClose(() => services.get(core)?.service.dispose());
  }
  return entry.service;
}

export const collectionsHandlers = (core: Core): HandlersFor<typeof collectionsChannels> => {
  const charges = () => chargeServiceFor(core);
  const keys = async () => ({ signingKey: await signingKey(core), servicePublicKey: core.servicePublicKeyPem() });
  return {
    'payments.options': () => charges().options(),
    'payments.charge': (form, ctx) => charges().charge(form, ctx.signal ? { signal: ctx.signal } : {}),
    'payments.confirmRepeat': (r, ctx) => charges().confirmRepeat(r.token, ctx.signal ? { signal: ctx.signal } : {}),
    'payments.cancelRepeat': (r) => {
      charges().cancelRepeat(r.token);
      return null;
    },
    'payments.resend': (r, ctx) => charges().resend(r.reference, r.card, ctx.signal ? { signal: ctx.signal } : {}),
    'collections.list': (q) => listCollections(core.db, q),
    'collections.get': (q) => {
      const got = getCollection(core.db, q.id ?? q.reference!);
      if (!got) throw new PaymentError('not_found', `No payment ${q.id !== undefined ? `#${q.id}` : q.reference}.`, q.id !== undefined ? 'id' : 'reference');
      return got;
    },
    'collections.orphans': (q) => listOrphans(core.db, q),
    'callbacks.importFolder': () => ({ canChoose: Boolean(core.chooseOpenPath), folder: importsDir(core), files: listImportFiles(importsDir(core)) }),
    'callbacks.import': async (r, ctx) => {
      const k = await keys();
      if (!k.signingKey && !k.servicePublicKey) {
        throw new PaymentError('not_configured', 'Neither the signing key nor the service public key is set, so no callback could be verified. Set them in Settings.');
      }
      // Which file: one of the imports folder by plain name, or the shell's open dialog; never a path
      // from the renderer (the contract refuses one).
      let file: string | null = null;
      if (r.name !== undefined) {
        file = importFileIn(importsDir(core), r.name);
      } else if (r.content === undefined) {
        if (!core.chooseOpenPath) throw new PaymentError('validation', `choose a file saved in ${importsDir(core)}`, 'name');
        file = await core.chooseOpenPath({ title: 'Import callbacks', filters: [{ name: 'JSON lines', extensions: ['jsonl', 'ndjson', 'json', 'txt'] }] });
        if (file === null) return { chosen: null };
      }
      const opts = { keys: k, clock: core.clock, ...(ctx.signal ? { signal: ctx.signal } : {}) };
      const summary = file !== null ? await importCallbacksJsonl(core.db, file, opts) : await importCallbacksText(core.db, r.content ?? '', opts);
      core.events.emit('callbacks.ingested', { result: 'import', reference: null });
      return summary;
    },
  };
};
