// The ledger a test stores events through, composed exactly as each process's composition root composes
// its own (main/app/ledger.ts composeLedger: composeCore, the CLI's withWorkspace). A test file takes one
// and passes it wherever the app would pass its root's; what its reconciler keeps per connection (the
// clock, the group route) is its own, so a test that sets them sets them on the ledger it appends with.
import { composeLedger, type ComposedLedger } from '../../main/app/ledger.js';

export function testLedger(): ComposedLedger {
  return composeLedger();
}
