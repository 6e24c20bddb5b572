import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { call, collectionWallet, control, initialize, receiver, sandbox, submitPage } from './helpers.js';
import { tempDir } from '../support/tmp.js';

describe('sandbox state across restarts', () => {
  it('keeps keys, wallets, collections and the clock offset; payment URLs follow the new port', async () => {
    const first = await sandbox();
    const c = await initialize(first);
    await submitPage(c.payment_url, { action: 'pay' });
    const pending = await initialize(first);
    await control(first, 'POST', '/clock/advance', { ms: 5 * 60_000 });
    const wallet = await collectionWallet(first);
    const keys = [first.publicKey, first.secretKey, first.signingKey, first.servicePublicKeyPem];
    const clockBefore = (await control<{ now_ms: number }>(first, 'GET', '/state')).body.now_ms;
    await first.close();

    const second = await sandbox({ stateDir: first.stateDir });
    expect([second.publicKey, second.secretKey, second.signingKey, second.servicePublicKeyPem]).toEqual(keys);
    expect(await collectionWallet(second)).toEqual(wallet);
    const state = (await control<{ collections: number; now_ms: number }>(second, 'GET', '/state')).body;
    expect(state.collections).toBe(2);
    expect(state.now_ms).toBeGreaterThanOrEqual(clockBefore);
    expect(state.now_ms - Date.now()).toBeGreaterThan(4 * 60_000);
    const rec = await control<{ status: string; payment_url: string }>(
      second,
      'GET',
      `/collections/${c.merchant_reference}`,
    );
    expect(rec.body.status).toBe('COMPLETED');
    expect(rec.body.payment_url.startsWith(second.baseUrl)).toBe(true);
    // the pending one can still be paid, on the new address
    const p = await control<{ payment_url: string }>(second, 'GET', `/collections/${pending.merchant_reference}`);
    const r = await submitPage(p.body.payment_url, { action: 'pay' });
    expect(r.status).toBe(302);
    // and the duplicate rule still knows the old reference
    const dup = await call(second, 'POST', '/collections/initialize', {
      body: { merchant_reference: c.merchant_reference },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.message).toMatch(/duplicate/);
  });

  it('a callback not yet delivered when it stopped is delivered after the restart', async () => {
    const first = await sandbox({ timeScale: 1 });
    const c = await initialize(first);
    await control(first, 'POST', '/callbacks/mode', { mode: 'hold' });
    await control(first, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    await control(first, 'POST', '/callbacks/mode', { mode: 'normal' });
    await first.close();
    const rx = await receiver();
    const second = await sandbox({ stateDir: first.stateDir, callbackUrl: rx.url });
    expect((await control<{ held_callbacks: number }>(second, 'GET', '/state')).body.held_callbacks).toBe(1);
    await control(second, 'POST', '/callbacks/release');
    const [got] = await rx.waitFor(1);
    expect(got!.body.payload.merchant_reference).toBe(c.merchant_reference);
  });
});

const started: number[] = [];
afterEach(() => {
  // a failed test must not leave a sandbox running
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('merchant-desk sandbox (CLI)', () => {
  it('prints one JSON line, writes sandbox.json, serves, and stops on SIGTERM keeping its state', async () => {
    const dir = tempDir('md-sbx-cli-');
    const run = async () => {
      const child = spawn('npx', ['tsx', 'main/cli/main.ts', 'sandbox', '--port', '0', '--state-dir', dir], {
        cwd: path.resolve(__dirname, '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // npx and tsx sit between us and the sandbox's node process, which says its pid on stderr
      while (!/pid (\d+)\)/.test(err)) await new Promise((r) => setTimeout(r, 20));
      const pid = Number(/pid (\d+)\)/.exec(err)![1]);
      started.push(pid);
      return { child, pid, line, exited, output: () => out, errors: () => err };
    };

    const a = await run();
    const info = JSON.parse(a.line);
    expect(Object.keys(info).sort()).toEqual([
      'base_url',
      'public_key',
      'secret_key',
      'service_public_key_path',
      'signing_key',
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'sandbox.json'), 'utf8'))).toEqual(info);
    expect(fs.readFileSync(info.service_public_key_path, 'utf8')).toMatch(/BEGIN PUBLIC KEY/);
    const res = await fetch(`${info.base_url}/data/wallet-balances?currency=USD`, {
      headers: { 'x-api-version': '1', 'public-key': info.public_key, 'secret-key': info.secret_key },
    });
    expect(res.status).toBe(200);
    process.kill(a.pid, 'SIGTERM');
    expect(await a.exited).toBe(0);
    expect(a.output().trim().split('\n')).toHaveLength(1);

    const b = await run();
    const again = JSON.parse(b.line);
    expect(again.public_key).toBe(info.public_key);
    expect(again.signing_key).toBe(info.signing_key);
    process.kill(b.pid, 'SIGINT');
    expect(await b.exited).toBe(0);
  }, 60_000);

  it('refuses a bad --port with a message saying what to fix', async () => {
    const { runCli } = await import('../../main/cli/index.js');
    let err = '';
    const io = {
      stdout: { write: () => true } as unknown as NodeJS.WritableStream,
      stderr: { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream,
      stdin: process.stdin,
    };
    expect(await runCli(['sandbox', '--port', 'eighty'], io)).toBe(2);
    expect(err).toMatch(/--port must be a port number/);
  });
});
