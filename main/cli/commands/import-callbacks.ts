// merchant-desk import-callbacks FILE: callbacks saved as JSON lines ({"headers": {...}, "body": ...}
// per line) go through the same ingestion as the local receiver: signatures verified, idempotent,
// unknown references kept as orphans. Prints a summary and one line per problem. Exit 1 when any
// line was malformed or had a bad signature. Refused on a team profile (see run). The import's rules
// are operations/import-callbacks.ts; this loads the keys the way the app does and prints the answer.
import fs from 'node:fs';
import path from 'node:path';
import { activeProfileBeforeOpening, withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { dataPaths } from '../../settings/paths.js';
import { readJsonFile, SANDBOX_INFO_LIMITS } from '../../settings/json-limits.js';
import { loadSettings } from '../../settings/settings.js';
import { loadConnection, verificationKeys, type VerificationKeys } from '../../settings/connection.js';
import { MemorySecretStore, secretStoreFor } from '../../secrets/secret-store.js';
import { checkImport, importCallbacks, type ImportCallbacksDeps } from '../../operations/import-callbacks.js';
import { DeskError, messageOf } from '../../errors.shared.js';
import type { SandboxInfo } from '../../../sandbox/index.js';
import type { Db } from '../../store/sqlite/connection.js';

/**
 * The embedded sandbox's keys, which it keeps in its state folder across restarts (the app holds them in
 * memory); refused when it has never run. Read before the data folder is opened.
 */
function embeddedSandboxInfo(dataDir: string): Partial<SandboxInfo> {
  const file = path.join(dataPaths(dataDir).sandbox, 'sandbox.json');
  let read: ReturnType<typeof readJsonFile>;
  try {
    read = readJsonFile(file, SANDBOX_INFO_LIMITS);
  } catch {
    throw new UsageError(
      `this data folder uses the embedded profile and its sandbox has never run (${file} is missing); start the app once, or run "merchant-desk connect"`,
    );
  }
  if ('problem' in read || !read.value || typeof read.value !== 'object')
    throw new UsageError(
      `${file} cannot be read (${'problem' in read ? read.problem : 'it is not a JSON object'}); start the app once to write it again`,
    );
  return read.value as Partial<SandboxInfo>;
}

/**
 * The keys that verify callbacks for this data folder's profile: from the profile's connection, loaded
 * as the app's workspace loads it (verificationKeys), so the CLI and the app never disagree on them.
 */
async function signatureKeys(db: Db, dataDir: string): Promise<{ keys: VerificationKeys; notes: string[] }> {
  const settings = loadSettings(db);
  const notes: string[] = [];
  let conn: Awaited<ReturnType<typeof loadConnection>>;
  if (settings.profile === 'embedded') {
    const info = embeddedSandboxInfo(dataDir);
    const secrets = new MemorySecretStore({
      'public-key': info.public_key,
      'secret-key': info.secret_key,
      'signing-key': info.signing_key,
    });
    if (info.base_url) await secrets.bindOrigin(new URL(info.base_url).origin);
    conn = await loadConnection({
      db,
      secrets,
      override: {
        ...(info.base_url ? { baseUrl: info.base_url } : {}),
        ...(info.service_public_key_path ? { servicePublicKeyPath: info.service_public_key_path } : {}),
      },
    });
    return { keys: verificationKeys(conn), notes };
  }
  conn = await loadConnection({ db, secrets: secretStoreFor(settings.profile) });
  if (!conn.ok && conn.error.kind === 'keychain_unavailable') {
    notes.push(`the keychain is unavailable (${conn.error.message}); only RSA signatures can be checked`);
  }
  const keys = verificationKeys(conn);
  if (!keys.signingKey) notes.push('no signing key is set: HMAC signatures cannot be checked');
  if (!keys.servicePublicKey) notes.push('no service public key is imported: RSA signatures cannot be checked');
  return { keys, notes };
}

/** The operation's refusals (a team profile, no key) as the CLI says usage problems: on stderr, exit 2. */
async function asUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof DeskError && (e.kind === 'forbidden' || e.kind === 'not_configured'))
      throw new UsageError(e.message, { cause: e });
    throw e;
  }
}

export const importCallbacksCommand: Command = {
  name: 'import-callbacks',
  summary: 'import callbacks saved as JSON lines (verified, idempotent, orphans kept)',
  usage: 'merchant-desk [--data-dir DIR] import-callbacks FILE [--json]',
  onFailure:
    'the callbacks stored before it stopped are kept, and importing the file again is safe: each callback is stored once',
  async run(args, ctx) {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { json: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE of JSON lines');
    const file = positionals[0]!;
    try {
      if (!fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(
        `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : messageOf(e)}`,
      );
    }
    // What the profile cannot import is refused before the data folder is opened (or made).
    const profile = activeProfileBeforeOpening(ctx);
    if (profile === 'team') await asUsage(async () => checkImport({ team: 'not signed in' }));
    if (profile === 'embedded') embeddedSandboxInfo(ctx.dataDir);
    return withWorkspace(ctx, async ({ db, settings, clock, ledger }) => {
      // This command has no sign-in: on a team profile there is no session to record the import with.
      const team: ImportCallbacksDeps['team'] = settings.profile === 'team' ? 'not signed in' : null;
      const s = await asUsage(async () => {
        checkImport({ team });
        const { keys, notes } = await signatureKeys(db, ctx.dataDir);
        // Without either key the operation refuses, as the window's import does; the notes would only repeat it.
        checkImport({ team, keys }, 'Run "merchant-desk connect" first.');
        for (const n of notes) ctx.io.stderr.write(`merchant-desk: note: ${n}\n`);
        return importCallbacks({ db, clock, ledger, keys, team }, { file });
      });
      if (values.json) {
        ctx.io.stdout.write(JSON.stringify(s) + '\n');
      } else {
        ctx.io.stdout.write(
          `${s.lines} line${s.lines === 1 ? '' : 's'}: ${s.imported} imported (${s.orphans} for unknown references, kept for review), ` +
            `${s.duplicates} duplicate, ${s.badSignatures} bad signature, ${s.malformed} malformed\n`,
        );
        for (const r of s.results) {
          if (r.result === 'malformed') ctx.io.stdout.write(`  malformed ${r.message}\n`);
          else if (r.result === 'bad_signature')
            ctx.io.stdout.write(`  line ${r.line}: bad signature (${r.reference ?? 'no reference'}): ${r.reason}\n`);
        }
      }
      return s.malformed + s.badSignatures > 0 ? 1 : 0;
    });
  },
};
