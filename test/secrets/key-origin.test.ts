// Keys are bound to the origin they were saved for: the renderer changing a profile's base URL must not
// move the secret key to another host. Real keychain (scripts/with-keyring.sh), real SQLite, a real
// sandbox and a second real HTTP server on 127.0.0.1 that records every request it gets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { startSandbox } from '../../sandbox/index.js';
import { KeyringSecretStore, MemorySecretStore } from '../../main/secrets/index.js';
import { loadConnection } from '../../main/settings/connection.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { updateSettings } from '../../main/settings/settings.js';
import path from 'node:path';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A host the keys were never meant for: answers like the service would, and records what reached it. */
async function recordingServer(): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ code: 200, status: 'success', message: 'ok', data: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** A desk (its IPC dispatcher, as the window calls it) and a sandbox of its own to point it at. */
async function deskBesideSandbox(o: { poll: boolean }) {
  const desk = await composeCore({ dataDir: tempDir(), logger: silentLogger(), poll: o.poll });
  core = desk; // closed after the test
  const d = typedInvoke(createDispatcher(buildHandlers(desk)));
  const sb = await startSandbox({ stateDir: tempDir() });
  onTestFinished(() => sb.close());
  return { desk, d, sb };
}

const carriesKey = (r: Recorded) => 'public-key' in r.headers || 'secret-key' in r.headers;

describe('keys are bound to the origin they were saved for', () => {
  it('settings.update to another host forgets the keys; polls send no key there; the view asks for keys for the new host', async () => {
    const { desk, d, sb } = await deskBesideSandbox({ poll: true });
    const other = await recordingServer();

    value(await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    value(await d('settings.setKey', { name: 'publicKey', value: sb.publicKey }));
    value(await d('settings.setKey', { name: 'secretKey', value: sb.secretKey }));
    let view = value(await d('settings.setKey', { name: 'signingKey', value: sb.signingKey }));
    expect(view.keys).toMatchObject({ boundTo: new URL(sb.baseUrl).origin, enterFor: null });
    expect(value(await d('balances.refresh', {})).lastError).toBeNull();

    view = value(await d('settings.update', { baseUrl: other.url }));
    expect(view.baseUrl).toBe(other.url);
    expect(view.keys).toMatchObject({
      publicKey: 'unset',
      secretKey: 'unset',
      signingKey: 'unset',
      enterFor: other.url,
      boundTo: new URL(sb.baseUrl).origin,
    });
    const store = new KeyringSecretStore('sandbox');
    expect(await store.get('secret-key')).toBeNull();

    await d('balances.refresh', {});
    await desk.poller!.refresh();
    expect(other.requests.filter(carriesKey)).toEqual([]);
    expect(value(await d('app.status', {}))).toMatchObject({
      connection: 'not_configured',
      message: expect.stringContaining(`enter the keys again for ${other.url}`),
    });

    // Defence in depth: keys written back into the keychain behind the app's back (still recorded as the
    // sandbox's) are not sent to the new host either.
    await store.set('public-key', sb.publicKey);
    await store.set('secret-key', sb.secretKey);
    await desk.reconnect();
    expect(desk.getClient()).toBeNull();
    await desk.poller!.refresh();
    expect(other.requests.filter(carriesKey)).toEqual([]);

    // Entering keys for the new host binds them to it; the old ones are not mixed in.
    view = value(await d('settings.setKey', { name: 'publicKey', value: 'pk_for_the_new_host' }));
    expect(view.keys).toMatchObject({ publicKey: 'set', secretKey: 'unset', boundTo: other.url, enterFor: other.url });
    expect(await store.get('secret-key')).toBeNull();
  });

  it('a key set while the host changes lands before that host change forgets the keys, never after it', async () => {
    const { d, sb } = await deskBesideSandbox({ poll: false });
    value(await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    value(await d('settings.setKey', { name: 'secretKey', value: sb.secretKey }));

    // The window sends both at once (Set pressed, then Save connection before the first answered): the
    // key is for the old host, so once both are done it is forgotten with the others, as the view says.
    const [set, moved] = await Promise.all([
      d('settings.setKey', { name: 'publicKey', value: sb.publicKey }),
      d('settings.update', { baseUrl: 'http://127.0.0.1:9' }),
    ]);
    expect(value(set).keys.publicKey).toBe('set');
    expect(value(moved).keys).toMatchObject({ publicKey: 'unset', secretKey: 'unset', enterFor: 'http://127.0.0.1:9' });
    const store = new KeyringSecretStore('sandbox');
    expect(await store.get('public-key')).toBeNull();
    expect(value(await d('settings.get', {})).keys.publicKey).toBe('unset');
  });

  it('a new path on the same host keeps the keys', async () => {
    const { d, sb } = await deskBesideSandbox({ poll: false });
    value(await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    value(await d('settings.setKey', { name: 'publicKey', value: sb.publicKey }));
    value(await d('settings.setKey', { name: 'secretKey', value: sb.secretKey }));
    const view = value(await d('settings.update', { baseUrl: `${sb.baseUrl}/` }));
    expect(view.keys).toMatchObject({ publicKey: 'set', secretKey: 'set', enterFor: null });
  });

  it('loadConnection builds no client for keys bound to another origin', async () => {
    const db = openDatabase(path.join(tempDir(), 'md.sqlite'));
    onTestFinished(() => {
      db.close();
    });
    updateSettings(db, { profile: 'sandbox', baseUrl: 'https://evil.example' });
    const secrets = new MemorySecretStore({ 'public-key': 'pk_live_x', 'secret-key': 'sk_live_x' });
    await secrets.bindOrigin('https://api.example.com');
    let built = 0;
    const conn = await loadConnection({
      db,
      secrets,
      createClient: () => {
        built++;
        throw new Error('must not be built');
      },
    });
    expect(built).toBe(0);
    expect(conn).toMatchObject({ ok: false, error: { kind: 'not_configured', field: 'publicKey' } });
    expect(!conn.ok && conn.error.message).toContain(
      'saved for https://api.example.com; enter the keys again for https://evil.example',
    );
  });
});
