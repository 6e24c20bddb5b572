// merchant-desk import-callbacks FILE: callbacks saved as JSON lines ({"headers": {...}, "body": ...}
// per line) go through the same ingestion as the local receiver: signatures verified, idempotent,
// unknown references kept as orphans. Prints a summary and one line per problem. Exit 1 when any
// line was malformed or had a bad signature.
import fs from 'node:fs';
import path from 'node:path';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { openDataFolder } from '../../settings/data-folder.js';
import { dataPaths } from '../../settings/paths.js';
import { loadSettings } from '../../settings/settings.js';
import { currentServicePublicKey } from '../../settings/service-key.js';
import { secretStoreFor, SecretStoreUnavailableError } from '../../secrets/secret-store.js';
import { importCallbacksJsonl } from '../../callbacks/import-jsonl.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { Db } from '../../store/db.js';
import { systemClock } from '../../clock.js';

/** The keys that verify callbacks for this data folder's profile. */
async function signatureKeys(db: Db, dataDir: string): Promise<{ keys: SignatureKeys; notes: string[] }> {
  const settings = loadSettings(db);
  const notes: string[] = [];
  if (settings.profile === 'embedded') {
    // The embedded sandbox keeps its keys in its state folder across restarts.
    const file = path.join(dataPaths(dataDir).sandbox, 'sandbox.json');
    let info: { signing_key?: string; service_public_key_path?: string };
    try {
      info = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof info;
    } catch {
      throw new UsageError(`this data folder uses the embedded profile and its sandbox has never run (${file} is missing); start the app once, or run "merchant-desk connect"`);
    }
    const pem = info.service_public_key_path ? currentServicePublicKey(info.service_public_key_path)?.pem ?? null : null;
    return { keys: { signingKey: info.signing_key ?? null, servicePublicKey: pem }, notes };
  }
  let signingKey: string | null = null;
  try {
    signingKey = await secretStoreFor(settings.profile).get('signing-key');
  } catch (e) {
    if (!(e instanceof SecretStoreUnavailableError)) throw e;
    notes.push(`the keychain is unavailable (${e.message}); only RSA signatures can be checked`);
  }
  const pem = currentServicePublicKey(settings.servicePublicKeyPath)?.pem ?? null;
  if (!signingKey) notes.push('no signing key is set: HMAC signatures cannot be checked');
  if (!pem) notes.push('no service public key is imported: RSA signatures cannot be checked');
  if (!signingKey && !pem) {
    throw new UsageError('no signing key and no service public key: nothing could verify a callback; run "merchant-desk connect" first');
  }
  return { keys: { signingKey, servicePublicKey: pem }, notes };
}

export const importCallbacksCommand: Command = {
  name: 'import-callbacks',
  summary: 'import callbacks saved as JSON lines (verified, idempotent, orphans kept)',
  usage: 'merchant-desk [--data-dir DIR] import-callbacks FILE [--json]',
  async run(args, ctx) {
    const { values, positionals } = parseCommandArgs({ args, options: { json: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE of JSON lines');
    const file = positionals[0]!;
    try {
      if (!fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    const db = openDataFolder(ctx.dataDir);
    try {
      const { keys, notes } = await signatureKeys(db, ctx.dataDir);
      for (const n of notes) ctx.io.stderr.write(`merchant-desk: note: ${n}\n`);
      const s = await importCallbacksJsonl(db, file, { keys, clock: systemClock });
      if (values.json) {
        ctx.io.stdout.write(JSON.stringify(s) + '\n');
      } else {
        ctx.io.stdout.write(
          `${s.lines} line${s.lines === 1 ? '' : 's'}: ${s.imported} imported (${s.orphans} for unknown references, kept for review), ` +
            `${s.duplicates} duplicate, ${s.badSignatures} bad signature, ${s.malformed} malformed\n`,
        );
        for (const r of s.results) {
          if (r.result === 'malformed') ctx.io.stdout.write(`  malformed ${r.message}\n`);
          else if (r.result === 'bad_signature') ctx.io.stdout.write(`  line ${r.line}: bad signature (${r.reference ?? 'no reference'}): ${r.reason}\n`);
        }
      }
      return s.malformed + s.badSignatures > 0 ? 1 : 0;
    } finally {
      db.close();
    }
  },
};
