// Payments and collections handlers. The charge request carries the card: it is passed to the charge
// service (which overwrites its fields) and is never logged here; dispatch logs no requests.
import fs from 'node:fs';
import type { Core } from '../../app/core.js';
import type { collectionsChannels } from '../contract/collections.js';
import type { HandlersFor } from './types.js';
import { createChargeService, type ChargeService } from '../../collections/charge.js';
import { getCollection, listCollections, listOrphans } from '../../collections/query.js';
import { PaymentError } from '../../collections/errors.js';
import { importCallbacksJsonl, importCallbacksText } from '../../callbacks/import-jsonl.js';
import type { CollectionRow } from '../../collections/query.js';

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
      getClient: () => core.getClient(),
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
    'callbacks.import': async (r, ctx) => {
      const k = await keys();
      if (!k.signingKey && !k.servicePublicKey) {
        throw new PaymentError('not_configured', 'Neither the signing key nor the service public key is set, so no callback could be verified. Set them in Settings.');
      }
      if (r.path !== undefined && !fs.statSync(r.path, { throwIfNoEntry: false })?.isFile()) {
        throw new PaymentError('validation', `${r.path} is not a file that can be read`, 'path');
      }
      const opts = { keys: k, clock: core.clock, ...(ctx.signal ? { signal: ctx.signal } : {}) };
      const summary = r.path !== undefined ? await importCallbacksJsonl(core.db, r.path, opts) : await importCallbacksText(core.db, r.content ?? '', opts);
      core.events.emit('callbacks.ingested', { result: 'import', reference: null });
      return summary;
    },
  };
};
