// What the window is told when a call fails in a way nobody wrote words for (issue 39, item 5): never the
// error's own text (a stack, "Maximum call stack size exceeded", a class name), but what failed, what it
// may have left changed and where the log with the detail is. One entry per channel, so a new channel
// cannot be added without saying this; the words are here, in one place, for the message catalogue.
import type { ChannelName } from './contract/index.js';

interface FailureWords {
  /** What the call was doing, as a sentence starts ("Importing callbacks"). */
  doing: string;
  /** What a failure part-way may have left changed; a read leaves this out: nothing was changed. */
  changes?: string;
}

const READ = (doing: string): FailureWords => ({ doing });

const WORDS: Record<ChannelName, FailureWords> = {
  'app.info': READ('Reading the app information'),
  'app.status': READ('Reading the status'),
  'balances.history': READ('Reading the balance history'),
  'balances.latest': READ('Reading the balances'),
  'balances.refresh': {
    doing: 'Refreshing the balances',
    changes: 'the balances already shown are kept',
  },
  'callbacks.import': {
    doing: 'Importing callbacks',
    changes:
      'the callbacks stored before it stopped are kept, and importing the file again is safe: each callback is stored once',
  },
  'callbacks.importFolder': READ('Listing the imports folder'),
  'collections.get': READ('Reading the collection'),
  'collections.list': READ('Reading the collections'),
  'lock.activity': READ('Noting activity'),
  'lock.lockNow': READ('Locking'),
  'lock.setPassphrase': {
    doing: 'Setting the passphrase',
    changes: 'the passphrase may not be set; set it again',
  },
  'lock.status': READ('Reading the lock'),
  'lock.unlock': READ('Unlocking'),
  'options.list': READ('Reading the payment options'),
  'options.refresh': {
    doing: 'Refreshing the payment options',
    changes: 'the payment options already shown are kept',
  },
  'payments.cancelRepeat': {
    doing: 'Cancelling the repeat charge',
    changes: 'look the collection up in Collections before charging again',
  },
  'payments.charge': {
    doing: 'Charging the card',
    changes: 'the payment may have been sent; look it up in Collections before charging again',
  },
  'payments.confirmRepeat': {
    doing: 'Charging the card again',
    changes: 'the payment may have been sent; look it up in Collections before charging again',
  },
  'payments.options': READ('Reading the card payment options'),
  'payments.resend': {
    doing: 'Sending the payment again',
    changes: 'it may have been sent; look it up in Collections before sending it again',
  },
  'reconcile.audit': READ('Reading the audit trail'),
  'reconcile.balanceMovement': READ('Reading the balance movement'),
  'reconcile.cancelRun': READ('Cancelling the recompute'),
  'reconcile.currencies': READ('Reading the currencies'),
  'reconcile.detail': READ('Reading the exception'),
  'reconcile.exceptions': READ('Reading the exceptions'),
  'reconcile.orphans': READ('Reading the callbacks for unknown references'),
  'reconcile.resolve': {
    doing: 'Resolving the exception',
    changes: 'look at the exception again before resolving it',
  },
  'reconcile.run': {
    doing: 'Recomputing the reconciliation',
    changes: 'the batches finished before it stopped are kept; the collections and their events were not changed',
  },
  'reconcile.securityLog': READ('Reading the refused callbacks'),
  'reconcile.summary': READ('Reading the reconciliation'),
  'reports.cancel': READ('Cancelling the export'),
  'reports.export': {
    doing: 'Exporting the report',
    changes: 'no report was written (the file appears only when it is complete)',
  },
  'reports.target': READ('Choosing where to save the report'),
  'settings.clearKey': {
    doing: 'Clearing the key',
    changes: 'the key may still be set; look at Settings',
  },
  'settings.get': READ('Reading the settings'),
  'settings.importServiceKey': {
    doing: 'Importing the service public key',
    changes: 'the key shown in Settings is the one in use',
  },
  'settings.setKey': {
    doing: 'Saving the key',
    changes: 'the key may not be saved; look at Settings',
  },
  'settings.setTeamCa': {
    doing: 'Saving the team CA certificate',
    changes: 'the certificate shown in Settings is the one in use',
  },
  'settings.update': {
    doing: 'Saving the settings',
    changes: 'the settings shown after reloading Settings are the ones in use',
  },
  'team.me': READ('Reading who is signed in'),
  'team.operators.list': READ('Reading the operators'),
  'team.operators.add': {
    doing: 'Adding the operator',
    changes: 'the operator may have been added; look at the list before adding them again',
  },
  'team.operators.disable': {
    doing: 'Disabling the operator',
    changes: 'look at the list to see whether the operator is disabled',
  },
  'team.operators.enable': {
    doing: 'Enabling the operator',
    changes: 'look at the list to see whether the operator is enabled',
  },
  'team.operators.setRole': {
    doing: "Changing the operator's role",
    changes: 'look at the list to see the role the operator has',
  },
};

/**
 * The message for an unexpected failure of `channel`: "<doing> failed unexpectedly; <changes>. The details
 * are in <log>." (`logFile`: the data folder's log; without it, "the log").
 */
export function unexpectedFailure(channel: string, logFile: string | undefined): string {
  const w: FailureWords = Object.hasOwn(WORDS, channel) ? WORDS[channel as ChannelName] : { doing: 'The request' };
  return `${w.doing} failed unexpectedly; ${w.changes ?? 'nothing was changed'}. The details are in ${logFile ?? 'the log'}.`;
}
