// startSandbox: a stateful local stand-in for the payments service (see sandbox-surface in the brief
// and the README's Sandbox section). Imports nothing from main/ except money and clock, so the
// client and the sandbox cannot share a bug.
import fs from 'node:fs';
import path from 'node:path';
import { openSandboxDb, writeFileAtomic } from './store.js';
import { loadOrCreateMerchantKeys, loadOrCreateServiceKeys } from './keys.js';
import { SandboxClock } from './clock.js';
import { Signer } from './signing.js';
import { CallbackDispatcher } from './callbacks.js';
import { Collections } from './collections.js';
import { SandboxCore } from './core.js';
import { seedWallets } from './wallets.js';
import { buildServer } from './server.js';
import { Controls } from './controls.js';
import type { Sandbox, SandboxInfo, SandboxOptions } from './types.js';

export type * from './types.js';
export { signedString } from './signing.js';

export const SANDBOX_JSON = 'sandbox.json';

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const timeScale = opts.timeScale ?? 1;
  if (!(timeScale > 0)) throw new Error('timeScale must be greater than 0');
  fs.mkdirSync(opts.stateDir, { recursive: true });
  const serviceKeys = await loadOrCreateServiceKeys(opts.stateDir);
  const db = openSandboxDb(opts.stateDir);
  try {
    const merchant = loadOrCreateMerchantKeys(db);
    seedWallets(db);
    const clock = new SandboxClock(db, opts.clock);
    const signer = new Signer(merchant.signingKey, serviceKeys.privateKey);
    // ref.core is set before any callback can be sent (sending starts after the server listens)
    const ref: { core?: SandboxCore } = {};
    const callbacks = new CallbackDispatcher(db, signer, clock, () => ref.core?.callbackUrl ?? null, timeScale);
    const collections = new Collections(db, clock, signer, callbacks);
    const core = new SandboxCore(
      db,
      clock,
      merchant,
      serviceKeys,
      signer,
      callbacks,
      collections,
      opts.rateLimitPerSecond ?? 0,
    );
    ref.core = core;
    if (opts.callbackUrl !== undefined) core.callbackUrl = opts.callbackUrl;

    const app = buildServer(core);
    await app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('the sandbox did not get a TCP address');
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    core.baseUrl = `http://${host}:${addr.port}`;

    const info: SandboxInfo = {
      base_url: core.baseUrl,
      public_key: merchant.publicKey,
      secret_key: merchant.secretKey,
      signing_key: merchant.signingKey,
      service_public_key_path: serviceKeys.publicKeyPath,
    };
    writeFileAtomic(path.join(opts.stateDir, SANDBOX_JSON), JSON.stringify(info, null, 2) + '\n', 0o600);

    callbacks.start();
    const ticker = setInterval(() => core.tick(), 1000);
    ticker.unref();

    let closing: Promise<void> | undefined;
    return {
      baseUrl: core.baseUrl,
      publicKey: merchant.publicKey,
      secretKey: merchant.secretKey,
      signingKey: merchant.signingKey,
      servicePublicKeyPath: serviceKeys.publicKeyPath,
      servicePublicKeyPem: serviceKeys.publicKeyPem,
      controls: new Controls(core),
      close: () =>
        (closing ??= (async () => {
          clearInterval(ticker);
          await callbacks.close();
          await app.close();
          db.close();
        })()),
    };
  } catch (e) {
    if (db.open) db.close();
    throw e;
  }
}

/** sandbox.json as the CLI prints it. */
export function sandboxInfo(sb: Sandbox): SandboxInfo {
  return {
    base_url: sb.baseUrl,
    public_key: sb.publicKey,
    secret_key: sb.secretKey,
    signing_key: sb.signingKey,
    service_public_key_path: sb.servicePublicKeyPath,
  };
}
