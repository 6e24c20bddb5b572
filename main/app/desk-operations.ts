// What the screens ask a desk to do, bound once (composeCore) to the desk's parts. Each operation's rules
// are its module in main/operations/ (a plain function over a narrow deps interface); here those deps are
// filled from the active profile at call time, so the next call after a profile switch acts on the new
// profile, and what the desk owns across calls is made once (the exports and the full reconciliation run
// in flight, stopped when the desk closes). The IPC handler tables take the few they call
// (Pick<Operations, ...>); the CLI commands call the same operation functions with deps of their own.
// The reads the screens make are desk-queries.ts.
import type { CardFields, CardForm } from '../collections/card-input.shared.js';
import {
  forgetKeysIfOriginChanged,
  importServicePublicKey,
  originOf,
  storeKeyFor,
  type SettingsPatch,
} from '../settings/index.js';
import type { SecretName } from '../secrets/index.js';
import type { ImportSummary } from '../callbacks/import-jsonl.js';
import {
  cancelRepeatCharge,
  chargeCard,
  confirmRepeatCharge,
  resendPayment,
  type ChargeOperationDeps,
} from '../operations/charge.js';
import {
  checkImport,
  importCallbacks,
  type ImportCallbacksDeps,
  type ImportSource,
} from '../operations/import-callbacks.js';
import {
  exportReport,
  runningExports,
  type ExportDeps,
  type ExportFormat,
  type ExportJob,
} from '../operations/export.js';
import { fullRuns, type ReconcileDeps } from '../operations/reconcile.js';
import { resolve, type ResolveRequest } from '../operations/resolve.js';
import { saveSettingsChange, type SwitchProfileDeps } from '../operations/switch-profile.js';
import type { DeskParts } from './desk-parts.js';
import { writeLanguage } from '../settings/language.js';
import { words, type LanguageChoice, type Words } from '../words/words.shared.js';
import { noticeOf } from './event-bus.js';
import { deskActor } from '../operations/actor.js';

/** The window that asked may go away: its signal aborts the work (best effort). */
interface Signal {
  signal?: AbortSignal | undefined;
}

const withSignal = (o: Signal) => (o.signal ? { signal: o.signal } : {});

/** Taking a card payment (operations/charge.ts) on the active profile's charge service. */
function paymentOperations(d: Pick<DeskParts, 'charges' | 'events'>) {
  // What an operation tells its window goes out as main's 'payment.progress' (pushed as payments.progress).
  const deps = (): ChargeOperationDeps => ({
    service: d.charges(),
    progress: (p) => d.events.emit('payment.progress', p),
  });
  return {
    chargeCard: (req: { operationId?: string | undefined; form: CardForm }, o: Signal = {}) =>
      chargeCard(deps(), req, o),
    confirmRepeatCharge: (req: { operationId?: string | undefined; token: string }, o: Signal = {}) =>
      confirmRepeatCharge(deps(), req, o),
    cancelRepeatCharge: (req: { token: string }) => cancelRepeatCharge(deps(), req),
    resendPayment: (req: { operationId?: string | undefined; reference: string; card: CardFields }, o: Signal = {}) =>
      resendPayment(deps(), req, o),
  };
}

/** Importing callbacks (operations/import-callbacks.ts) into the active profile. */
function importOperations(
  d: Pick<DeskParts, 'clock' | 'db' | 'events' | 'ledger' | 'recordTeamFirst' | 'settings' | 'verificationKeys'>,
) {
  return {
    /**
     * Checks the import may be made, then imports what `choose` gives (null: nothing was chosen, nothing
     * done). The desk is read once, when asked: a file dialog may stay open a while, and the import goes
     * where it was asked for.
     */
    importCallbacks: async (
      choose: () => Promise<ImportSource | null>,
      o: Signal = {},
    ): Promise<ImportSummary | null> => {
      const deps: ImportCallbacksDeps = {
        db: d.db,
        clock: d.clock,
        ledger: d.ledger,
        keys: d.verificationKeys(),
        team: d.settings().profile === 'team' ? { recordFirst: (evs, what) => d.recordTeamFirst(evs, what) } : null,
      };
      checkImport(deps); // before a dialog asks for a file
      const source = await choose();
      if (source === null) return null;
      const summary = await importCallbacks(deps, source, withSignal(o));
      d.events.emit('callbacks.ingested', { result: 'import', reference: null });
      return summary;
    },
  };
}

/** Exporting a report (operations/export.ts): one run per export id, all stopped when the desk closes. */
function exportOperations(d: Pick<DeskParts, 'clock' | 'db' | 'events' | 'onClose' | 'settings'>) {
  const running = runningExports();
  d.onClose(() => running.cancelAll());
  const deps = (): ExportDeps => ({
    db: d.db,
    clock: d.clock,
    stalePendingAfterMs: () => d.settings().stalePendingAfterMs,
  });
  return {
    /** Throws when export `exportId` is running (asked before a save dialog opens). */
    checkExportFree: (exportId: string) => running.checkFree(exportId),
    /** Writes `job` to `file` as export `exportId`; its progress goes out as 'reports.progress'. */
    exportReport: (exportId: string, job: ExportJob, file: string, o: { format: ExportFormat; bom: boolean }) =>
      // run() checks the id again: a second request with it may have started while a dialog was open.
      running.run(exportId, (signal) =>
        exportReport(deps(), job, file, {
          format: o.format,
          bom: o.bom,
          signal,
          onProgress: (p) => d.events.emit('reports.progress', { exportId, ...p }),
        }),
      ),
    cancelExport: (exportId: string) => running.cancel(exportId),
  };
}

/** Resolving (operations/resolve.ts) and the full recompute (operations/reconcile.ts), one run at a time. */
function reconcileOperations(
  d: Pick<DeskParts, 'clock' | 'db' | 'events' | 'ledger' | 'onClose' | 'recordTeamFirst' | 'settings' | 'team'>,
) {
  const stalePendingAfterMs = () => d.settings().stalePendingAfterMs;
  const reconcileDeps: ReconcileDeps = {
    get db() {
      return d.db; // the active profile's, when the run starts
    },
    clock: d.clock,
    stalePendingAfterMs,
  };
  const runs = fullRuns(reconcileDeps);
  d.onClose(() => runs.cancelAll());
  return {
    resolve: (req: ResolveRequest) => {
      const s = d.settings();
      return resolve(
        {
          db: d.db,
          ledger: d.ledger,
          reconcileOptions: { now: d.clock.now(), stalePendingAfterMs: s.stalePendingAfterMs },
          operatorName: s.operatorName,
          team:
            s.profile === 'team'
              ? {
                  login: deskActor(s),
                  recordFirst: (evs, what) => d.recordTeamFirst(evs, what),
                  pullNow: () =>
                    void d
                      .team()
                      ?.sync.pullNow()
                      .catch(() => undefined),
                }
              : null,
        },
        req,
      );
    },
    /** Recomputes every collection as run `runId`; its progress goes out as 'reconcile.progress'. */
    reconcileRun: (runId: string, o: Signal = {}) =>
      runs.run(runId, { ...withSignal(o), onProgress: (p) => d.events.emit('reconcile.progress', p) }),
    cancelReconcileRun: (runId: string) => runs.cancel(runId),
  };
}

/** Changing settings and keys; another profile or team connection is operations/switch-profile.ts. */
function settingsOperations(
  d: Pick<
    DeskParts,
    | 'appStatus'
    | 'clock'
    | 'dataDir'
    | 'db'
    | 'events'
    | 'logger'
    | 'poller'
    | 'reconnect'
    | 'reopenWorkspace'
    | 'secrets'
    | 'settings'
    | 'switchProfile'
  >,
) {
  const switching: SwitchProfileDeps = {
    get db() {
      return d.db;
    },
    clock: d.clock,
    notify: (notice) => d.events.emit('notice', notice),
    settings: () => d.settings(),
    switchProfile: (profile, patch) => d.switchProfile(profile, patch),
    reopenWorkspace: () => d.reopenWorkspace(),
  };
  return {
    saveSettings: (patch: SettingsPatch, why?: Words) => saveSettingsChange(switching, patch, why),
    /** After a change: the connection rebuilt, the screens told, the cache refreshed in the background. */
    settingsChanged: async () => {
      await d.reconnect();
      d.events.emit('settings.changed', { profile: d.settings().profile });
      d.events.emit('status.changed', d.appStatus());
      void d.poller?.refresh().catch(() => {});
    },
    /** A new host gets no keys of the old one: they are asked for again, for the new host. */
    forgetKeysIfHostMoved: async (before: string | null, after: string | null) => {
      if (!(await forgetKeysIfOriginChanged(d.secrets(), before, after))) return;
      d.logger.info(
        { from: before && originOf(before), to: after && originOf(after) },
        'base URL moved to another host; its keys were forgotten',
      );
      d.events.emit(
        'notice',
        noticeOf(
          'warning',
          after ? words('app.notice.keysForHost', { host: originOf(after) }) : words('app.notice.keysNoHost'),
        ),
      );
    },
    storeKey: (baseUrl: string, name: SecretName, value: string) => storeKeyFor(d.secrets(), baseUrl, name, value),
    deleteKey: (name: SecretName) => d.secrets().delete(name),
    importServicePublicKey: (pem: string) => importServicePublicKey(d.db, d.dataDir, pem, d.clock),
    /** The desk's language, for every profile of this data folder. */
    setLanguage: (choice: LanguageChoice) => writeLanguage(d.dataDir, choice),
  };
}

/** Fetching balances and payment options now, instead of at the poller's next turn. */
function refreshOperations(d: Pick<DeskParts, 'poller' | 'ready'>) {
  return {
    refreshBalances: async () => {
      await d.ready(); // while the sandbox starts there is no poller yet: wait for it
      await d.poller?.refresh('balances');
    },
    refreshPaymentOptions: async () => {
      await d.poller?.refresh('providers');
    },
  };
}

function lockOperations(d: Pick<DeskParts, 'lock'>) {
  return {
    unlock: (secret: string, o: { remember?: boolean }) => d.lock.unlock(secret, o),
    setPassphrase: (passphrase: string) => d.lock.setPassphrase(passphrase),
    lockNow: () => d.lock.lockNow(),
  };
}

/** The shell's native dialogs, as it set them (null where it has none). */
function shellDialogs(d: Pick<DeskParts, 'chooseOpenPath' | 'chooseSavePath' | 'confirm'>) {
  return {
    openDialog: () => d.chooseOpenPath,
    saveDialog: () => d.chooseSavePath,
    confirmDialog: () => d.confirm,
  };
}

export function deskOperations(d: DeskParts) {
  return {
    ...paymentOperations(d),
    ...importOperations(d),
    ...exportOperations(d),
    ...reconcileOperations(d),
    ...settingsOperations(d),
    ...refreshOperations(d),
    ...lockOperations(d),
    ...shellDialogs(d),
  };
}

/** Every operation of a desk, bound; a handler table takes the few it calls. */
export type Operations = ReturnType<typeof deskOperations>;
