// What every step of one charge service shares (types.ts ChargeContext): the event writer, the
// collection read back after each change, the live settings, and the service connection a charge needs.
import { getCollection } from '../query.js';
import { PaymentError } from '../errors.js';
import type { ServiceClient } from '../../service/types.js';
import { chargeEvents } from './record.js';
import type { ChargeContext, ChargeProgress, ChargeServiceDeps } from './types.js';

/** A setting given as a value or read each time. */
function val<T>(v: T | (() => T)): T {
  return typeof v === 'function' ? (v as () => T)() : v;
}

export function chargeContext(deps: ChargeServiceDeps): ChargeContext {
  const { db, clock } = deps;
  return {
    db,
    clock,
    deps,
    // What the service answered is stored through this before the charge goes on (waiting while the
    // database is locked); on a team profile with an outbox row, pushed to the team from there, with
    // the operator (the desk's login) as its actor.
    events: chargeEvents(db, {
      ledger: deps.ledger,
      team: () => deps.team?.() ?? null,
      now: () => clock.now(),
      logger: deps.logger,
      operator: () => val(deps.operator),
    }),
    emit(id) {
      const c = getCollection(db, id)?.collection ?? null;
      if (c) deps.onUpdate?.(c);
      return c;
    },
    redirectUrl: () => val(deps.redirectUrl),
    operator: () => val(deps.operator),
  };
}

/** A context whose emit also tells this call's progress (its own collection only). */
export function following(ctx: ChargeContext, onProgress: ((p: ChargeProgress) => void) | undefined): ChargeContext {
  if (!onProgress) return ctx;
  return {
    ...ctx,
    emit(id) {
      const c = ctx.emit(id);
      if (c) onProgress({ reference: c.merchantReference, status: c.status });
      return c;
    },
  };
}

/** The service client and its public key (PEM), or the PaymentError that says which is missing. */
export async function serviceKeys(deps: ChargeServiceDeps): Promise<{ client: ServiceClient; pem: string }> {
  const client = await deps.getClient();
  if (!client)
    throw new PaymentError(
      'not_configured',
      'The service connection is not set up: enter the base URL and keys in Settings.',
    );
  const pem = await deps.getServicePublicKeyPem();
  if (!pem)
    throw new PaymentError('not_configured', 'The service public key is missing: import its PEM file in Settings.');
  return { client, pem };
}
