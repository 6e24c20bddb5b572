// Importing callbacks saved as JSON lines: the one place its rules live (issue 28). The IPC handler
// (ipc/handlers/collections.ts, which also chooses the file) and the CLI command
// (cli/commands/import-callbacks.ts, which loads the keys) are thin adapters over it.
//
// - Keys: without the signing key or the service public key no callback could be verified: refused.
// - Where first: a team desk records what the import stores (the verified callbacks, as the team keeps
//   them: callbacks/import-jsonl.ts eventsOfImport) in the team database before it stores them, as the
//   signed-in login (refused offline or for a role that may not import: nothing is stored); the team
//   answers the key each line is stored under (a body it holds is a repeat, or said again after another
//   status: team migration 18), and the desk stores each line under that key. A team profile with no signed-in session (the CLI) imports nothing: a local-only copy would
//   never reach the other desks.
// - Then the same ingestion as the local receiver: verified, idempotent, unknown references kept as orphans.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock } from '../clock.js';
import type { Ledger } from '../collections/ledger.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { PaymentError } from '../collections/errors.js';
import {
  eventsOfImport,
  importCallbacksJsonl,
  importCallbacksText,
  type ImportSummary,
} from '../callbacks/import-jsonl.js';
import type { TeamFirstWhat } from '../team/record.js';
import type { TeamFirstRecorder } from './resolve.js';

const IMPORT_WHAT: TeamFirstWhat = { action: 'import callbacks', noun: 'import' };

/** Said when a team profile has no signed-in session to record the import with (the CLI). */
const TEAM_IMPORT_NEEDS_SIGN_IN =
  "this data folder uses the team profile: callbacks are imported in the app (Collections, Import callbacks) after signing in, so the import is recorded in the team database first; serve receives the team's callbacks";

export interface ImportCallbacksDeps {
  db: Db;
  clock: Clock;
  /** The process's ledger: what the verified callbacks are stored through. */
  ledger: Ledger;
  keys: SignatureKeys;
  /**
   * A team desk records the import team-first (its signed-in session); 'not signed in': a team profile
   * with no session to record it with; null: a solo desk.
   */
  team: Pick<TeamFirstRecorder, 'recordFirst'> | 'not signed in' | null;
}

/** A file of JSON lines (a path main chose), or the lines themselves. */
export type ImportSource = { file: string } | { text: string };

/**
 * Throws why an import cannot be made, before anything is read (a file chosen, a file opened): a team
 * profile with no session to record it, or no key to verify a callback with (when `keys` is given).
 */
export function checkImport(
  deps: Pick<ImportCallbacksDeps, 'team'> & { keys?: SignatureKeys },
  /** Where the person sets the keys (the window's Settings; the CLI's `connect`). */
  setKeys = 'Set them in Settings.',
): void {
  if (deps.team === 'not signed in') throw new PaymentError('forbidden', TEAM_IMPORT_NEEDS_SIGN_IN);
  if (deps.keys && !deps.keys.signingKey && !deps.keys.servicePublicKey)
    throw new PaymentError(
      'not_configured',
      `Neither the signing key nor the service public key is set, so no callback could be verified. ${setKeys}`,
    );
}

export async function importCallbacks(
  deps: ImportCallbacksDeps,
  source: ImportSource,
  o: { signal?: AbortSignal } = {},
): Promise<ImportSummary> {
  checkImport(deps);
  const opts = { keys: deps.keys, clock: deps.clock, ledger: deps.ledger, ...(o.signal ? { signal: o.signal } : {}) };
  const stream = () =>
    'file' in source ? fs.createReadStream(source.file, { encoding: 'utf8' }) : Readable.from([source.text]);
  const team = deps.team === 'not signed in' ? null : deps.team; // refused above
  let local: typeof opts & { storedFirst?: ReadonlySet<string>; teamKeys?: ReadonlyMap<number, string | null> } = opts;
  if (team) {
    // The team judges each line (new, a repeat, or said again after another status: team migration 18) and
    // this desk stores what it answered. What the team stored counts as imported here even when the sync
    // stored it first.
    const lines = await eventsOfImport(stream(), opts);
    const r = await team.recordFirst(
      lines.map((l) => l.event),
      IMPORT_WHAT,
    );
    local = { ...opts, storedFirst: r.stored, teamKeys: new Map(lines.map((l, i) => [l.line, r.keys[i] ?? null])) };
  }
  return 'file' in source
    ? await importCallbacksJsonl(deps.db, source.file, local)
    : await importCallbacksText(deps.db, source.text, local);
}
