// What the screens read from a desk, bound once (composeCore) to the desk's parts: each read goes to the
// active profile's database (and settings, keys, charge service) at call time, so the next read after a
// profile switch is the new profile's. The IPC handler tables take the few they call
// (Pick<Queries, ...>) and shape the answer. What the screens ask a desk to do is desk-operations.ts.
import fs from 'node:fs';
import { getCollection, listCollections } from '../collections/query.js';
import { balanceHistory, latestBalances } from '../store/sqlite/balances.js';
import { listPaymentOptions, paymentOptionsList, type PaymentOptionsFilter } from '../store/sqlite/payment-options.js';
import { cacheState } from '../store/sqlite/poll-runs.js';
import {
  balanceMovement,
  getDetail,
  getSummary,
  listAudit,
  listCurrencies,
  listExceptions,
  listOrphanCallbacks,
  type MovementQuery,
} from '../reconcile/index.js';
import { listSecurityLog } from '../callbacks/security-log.js';
import { dataPaths, operatorNameChanges, readSettings } from '../settings/index.js';
import { secretStatus } from '../secrets/index.js';
import type { DeskParts } from './desk-parts.js';
import { readLanguage } from '../settings/language.js';

const DAY = 86_400_000;

/** The second argument of a read, as the read itself declares it. */
type QueryOf<F extends (...args: never[]) => unknown> = Parameters<F>[1];

function appQueries(d: Pick<DeskParts, 'appStatus' | 'dataDir' | 'settings' | 'shell' | 'version'>) {
  return {
    appInfo: () => ({ version: d.version, profile: d.settings().profile, shell: d.shell, dataDir: d.dataDir }),
    /** Profile, connection state and last successful poll, for the status bar. */
    appStatus: () => d.appStatus(),
    /** The desk's language (language.json in the data folder, not the profile's database). */
    language: () => readLanguage(d.dataDir),
  };
}

function balanceQueries(d: Pick<DeskParts, 'clock' | 'db' | 'settings'>) {
  return {
    latestBalances: (currency?: string) =>
      latestBalances(d.db, {
        now: d.clock.now(),
        staleAfterMs: d.settings().staleAfterMs,
        ...(currency ? { currency } : {}),
      }),
    /** A currency's balances over [from, to]; by default the week up to now. */
    balanceHistory: (q: { currency: string; from?: number | undefined; to?: number | undefined }) => {
      const to = q.to ?? d.clock.now();
      const from = q.from ?? to - 7 * DAY;
      return { currency: q.currency, from, to, points: balanceHistory(d.db, { currency: q.currency, from, to }) };
    },
  };
}

function paymentOptionQueries(d: Pick<DeskParts, 'charges' | 'clock' | 'db' | 'settings'>) {
  // The options' list changes with the providers' poll: stale after twice its period at least.
  const staleAfterMs = () => {
    const s = d.settings();
    return Math.max(s.staleAfterMs, s.pollIntervals.providersMs * 2);
  };
  return {
    paymentOptions: (filter: PaymentOptionsFilter) =>
      paymentOptionsList(d.db, { now: d.clock.now(), staleAfterMs: staleAfterMs(), ...filter }),
    allPaymentOptions: () => listPaymentOptions(d.db),
    paymentOptionsCache: () => cacheState(d.db, 'providers', d.clock.now(), staleAfterMs()),
    /** Today's total in `currency` against a card option's daily limit (a team desk: the team's). */
    collectedToday: (currency: string) => d.charges().collectedToday(currency),
    /** The card options a charge may use, with their limits. */
    chargeOptions: () => d.charges().options(),
  };
}

function collectionQueries(d: Pick<DeskParts, 'dataDir' | 'db'>) {
  return {
    collections: (q: QueryOf<typeof listCollections>) => listCollections(d.db, q),
    /** One collection with its timeline, by id or merchant reference; null when there is none. */
    collection: (idOrReference: number | string) => getCollection(d.db, idOrReference),
    /** Where callbacks files are saved for import when the shell has no open dialog (made on first use). */
    importsFolder: () => {
      const dir = dataPaths(d.dataDir).imports;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    },
    /** Where exports go without a save dialog (made when an export is written there). */
    exportsFolder: () => dataPaths(d.dataDir).exports,
  };
}

function reconcileQueries(d: Pick<DeskParts, 'clock' | 'db' | 'settings'>) {
  const opts = () => ({ now: d.clock.now(), stalePendingAfterMs: d.settings().stalePendingAfterMs });
  return {
    reconcileSummary: () => getSummary(d.db, opts()),
    exceptions: (q: QueryOf<typeof listExceptions>) => listExceptions(d.db, q, opts()),
    reconcileCurrencies: () => listCurrencies(d.db),
    orphanCallbacks: (q: QueryOf<typeof listOrphanCallbacks>) => listOrphanCallbacks(d.db, q),
    exceptionDetail: (collectionId: number) => getDetail(d.db, collectionId, opts()),
    audit: (q: QueryOf<typeof listAudit>) => listAudit(d.db, q),
    balanceMovement: (q: Omit<MovementQuery, 'now'>) => balanceMovement(d.db, { ...q, now: d.clock.now() }),
    securityLog: (q: QueryOf<typeof listSecurityLog>) => listSecurityLog(d.db, q),
  };
}

function settingsQueries(d: Pick<DeskParts, 'callbackReceiverUrl' | 'db' | 'embedded' | 'secrets' | 'settings'>) {
  return {
    /** The current settings (the Settings screen changes them). */
    settings: () => d.settings(),
    /** The stored settings and what is wrong with them, as the Settings screen shows both. */
    storedSettings: () => readSettings(d.db),
    /** Which keys are set and where, with the host they were saved for (null: none, or unreadable). */
    keyStatus: async () => {
      const store = d.secrets();
      const keys = await secretStatus(store);
      const boundTo = keys.available ? await store.origin().catch(() => null) : null;
      return { ...keys, boundTo };
    },
    operatorNameChanges: () => operatorNameChanges(d.db),
    embedded: () => d.embedded(),
    callbackReceiverUrl: () => d.callbackReceiverUrl(),
  };
}

function sessionQueries(d: Pick<DeskParts, 'lock' | 'team'>) {
  return {
    lockStatus: () => d.lock.status(),
    /** The signed-in team session; null on a solo profile or signed out. */
    team: () => d.team(),
  };
}

export function deskQueries(d: DeskParts) {
  return {
    ...appQueries(d),
    ...balanceQueries(d),
    ...paymentOptionQueries(d),
    ...collectionQueries(d),
    ...reconcileQueries(d),
    ...settingsQueries(d),
    ...sessionQueries(d),
  };
}

/** Every read of a desk, bound; a handler table takes the few it calls. */
export type Queries = ReturnType<typeof deskQueries>;
