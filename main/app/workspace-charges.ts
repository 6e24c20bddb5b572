// A workspace's charge service (workspace.ts), built once on its database: the service's client, keys and
// payment window as the workspace has them, the actor the charge operation names, and on a team profile
// the team-first seam.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { loadSettings, type Settings, type VerificationKeys } from '../settings/index.js';
import type { ServiceClient } from '../service/types.js';
import { createChargeService, type ChargeService } from '../collections/charge/service.js';
import type { Ledger } from '../collections/ledger.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { AppEventBus } from './event-bus.js';
import type { TeamLink } from './team.js';
import type { ServiceConnection } from './service-connection.js';
import { deskActor } from '../operations/actor.js';

export interface WorkspaceChargeDeps {
  db: Db;
  /** What the charges store the service's answers through. */
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  getClient: () => Promise<ServiceClient | null>;
  keys: () => VerificationKeys;
  /** The team's card fingerprint key (from the secret key), once connected. */
  fingerprintKey?: () => Buffer | null;
  /** The profile's settings (redirect URL and operator name are read at each charge). */
  settings: () => Pick<Settings, 'redirectUrl' | 'operatorName'>;
  paymentWindow: () => PaymentWindowOpener | null;
  /** The team profile's seam (intent-first in the team database); absent on solo profiles. */
  team?: TeamLink | null;
  newReference?: ((now: number) => string) | undefined;
}

/**
 * A workspace's charge service, built once on its database: it holds the repeat guard and pending
 * confirmations in memory, and says 'collection.changed' whenever a charge moves a collection.
 */
export function workspaceCharges(d: WorkspaceChargeDeps): ChargeService {
  return createChargeService({
    db: d.db,
    ledger: d.ledger,
    getClient: d.getClient,
    getServicePublicKeyPem: () => d.keys().servicePublicKey,
    getSigningKey: () => d.keys().signingKey,
    clock: d.clock,
    paymentWindow: d.paymentWindow,
    redirectUrl: () => d.settings().redirectUrl,
    operator: () =>
      deskActor({ teamLogin: d.team ? d.team.state().login : null, operatorName: d.settings().operatorName }),
    logger: d.logger,
    onUpdate: (c) =>
      d.events.emit('collection.changed', { id: c.id, reference: c.merchantReference, status: c.status }),
    ...(d.team ? { team: () => d.team!.charges, getFingerprintKey: () => d.fingerprintKey?.() ?? null } : {}),
    ...(d.newReference ? { newReference: d.newReference } : {}),
  });
}

/** The workspace's charges: a charge made while the embedded sandbox is still starting waits for it. */
export function chargesOn(
  opts: Pick<WorkspaceChargeDeps, 'db' | 'ledger' | 'clock' | 'logger' | 'events' | 'paymentWindow' | 'newReference'>,
  connection: ServiceConnection,
  ready: Promise<void>,
  team: TeamLink | null,
): ChargeService {
  const { db, clock, logger, events } = opts;
  return workspaceCharges({
    db,
    ledger: opts.ledger,
    clock,
    logger,
    events,
    getClient: async () => {
      await ready;
      return connection.client();
    },
    keys: connection.keys,
    fingerprintKey: () => {
      const conn = connection.current();
      return conn?.ok ? conn.fingerprintKey : null;
    },
    settings: () => loadSettings(db),
    paymentWindow: opts.paymentWindow,
    team,
    newReference: opts.newReference,
  });
}
