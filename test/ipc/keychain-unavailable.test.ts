// No reachable OS keychain (no Secret Service on the session bus): the app says so plainly, refuses to
// store keys anywhere else, and the embedded profile still runs with its sandbox keys in memory.
process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/merchant-desk-test-bus';

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

it('says the keychain is unavailable, refuses to store a key, writes it nowhere, and the embedded profile still works', async () => {
  const dataDir = tempDir();
  core = await composeCore({ dataDir, logger: silentLogger(), poll: true });
  const d = typedInvoke(createDispatcher(buildHandlers(core)));
  await core.poller!.refresh('balances');
  expect((await d('balances.latest', {})).ok).toBe(true);
  const sb = core.embedded()!;

  const up = await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl });
  expect(up.ok).toBe(true);
  const status = await d('app.status', {});
  expect(status).toMatchObject({
    ok: true,
    value: { profile: 'sandbox', keychain: 'unavailable', connection: 'not_configured' },
  });
  const view = await d('settings.get', {});
  expect(view).toMatchObject({ ok: true, value: { keys: { available: false, store: 'keychain' } } });
  if (view.ok) expect(view.value.keys.reason).toMatch(/keychain|secret service|unavailable/i);

  const secret = 'sk_test_never_written_anywhere_123456';
  const r = await d('settings.setKey', { name: 'secretKey', value: secret });
  expect(r).toMatchObject({ ok: false, error: { kind: 'keychain_unavailable' } });
  if (!r.ok) expect(r.error.message).not.toContain(secret);

  // Back to embedded: it runs without the keychain.
  expect((await d('settings.update', { profile: 'embedded' })).ok).toBe(true);
  await core.poller!.refresh('balances');
  expect(await d('app.status', {})).toMatchObject({
    ok: true,
    value: { profile: 'embedded', connection: 'online', keychain: 'memory' },
  });

  await core.close();
  core = undefined;
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const f of walk(dataDir)) expect(fs.readFileSync(f).includes(Buffer.from(secret)), f).toBe(false);
});
