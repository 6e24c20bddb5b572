// Start-up on the embedded profile: the window and the IPC handlers answer at once from the cache while
// the sandbox starts in the background (its first start makes an RSA-4096 key), the status says so, and
// the balances arrive once the sandbox is up. Real SQLite, real key generation, real Chromium.
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import type { Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { startChromiumShell, type ChromiumShell } from '../../main/shell/chromium.js';
import { ensureRendererBuilt } from '../e2e/support/app.js';

let core: Core | undefined;
let shell: ChromiumShell | undefined;
afterEach(async () => {
  await shell?.close();
  await core?.close();
  shell = undefined;
  core = undefined;
});

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** A promise the test settles by hand (holds the sandbox start open). */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

describe('start-up while the embedded sandbox is starting', () => {
  it('answers IPC calls while the sandbox makes its key (the event loop keeps turning), then connects and polls', async () => {
    core = await composeCore({ dataDir: tempDir(), logger: silentLogger(), background: true });
    const d = typedInvoke(createDispatcher(buildHandlers(core)));
    let settled = false;
    const ready = core.ready().then(() => (settled = true));
    // Count event-loop turns while the key is generated: a synchronous key generation would leave none.
    let turns = 0;
    const ticker = setInterval(() => turns++, 5);

    expect(value(await d('app.status', {}))).toMatchObject({
      profile: 'embedded',
      connection: 'starting',
      message: 'Starting the sandbox…',
    });
    const cached = value(await d('balances.latest', {}));
    expect(cached.rows).toEqual([]);
    expect(value(await d('app.info', {}))).toMatchObject({ profile: 'embedded' });
    expect(settled).toBe(false);
    expect(core.embedded()).toBeNull();

    const updated = new Promise<void>((resolve) => {
      const off = pushToRenderer(core!.events, (event, payload) => {
        if (event === 'balances.updated' && (payload as { outcome: string }).outcome === 'ok') {
          off();
          resolve();
        }
      });
    });
    await ready;
    clearInterval(ticker);
    expect(turns).toBeGreaterThanOrEqual(10);
    expect(core.embedded()?.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await updated;
    const rows = value(await d('balances.latest', {})).rows;
    expect(new Set(rows.map((r) => r.currency))).toEqual(new Set(['UGX', 'KES', 'TZS', 'USD']));
    expect(value(await d('app.status', {}))).toMatchObject({ connection: 'online' });
  });

  it('a refresh asked for while the sandbox starts waits for it and returns the balances', async () => {
    const g = gate();
    core = await composeCore({
      dataDir: tempDir(),
      logger: silentLogger(),
      background: true,
      sandbox: { beforeStart: () => g.p },
    });
    const d = typedInvoke(createDispatcher(buildHandlers(core)));
    const refresh = d('balances.refresh', {});
    let answered = false;
    void refresh.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    g.open();
    const rows = value(await refresh).rows;
    expect(rows.length).toBeGreaterThan(0);
  });

  it('a sandbox that cannot start is reported in the status and a notice; the cache stays readable', async () => {
    const notices: string[] = [];
    core = await composeCore({
      dataDir: tempDir(),
      logger: silentLogger(),
      background: true,
      sandbox: { beforeStart: () => Promise.reject(new Error('port 1 is taken')) },
    });
    pushToRenderer(core.events, (event, payload) => {
      if (event === 'app.notice') notices.push((payload as { message: string }).message);
    });
    await core.ready();
    const d = typedInvoke(createDispatcher(buildHandlers(core)));
    expect(value(await d('app.status', {}))).toMatchObject({
      connection: 'error',
      message: 'Start-up failed: port 1 is taken',
    });
    expect(notices).toEqual(['The app could not connect: port 1 is taken']);
    expect(value(await d('balances.latest', {})).rows).toEqual([]);
  });

  it('the window shows "Starting the sandbox…" with the cached screen, then the balances appear', async () => {
    ensureRendererBuilt();
    const g = gate();
    core = await composeCore({
      dataDir: tempDir(),
      logger: silentLogger(),
      background: true,
      sandbox: { beforeStart: () => g.p },
    });
    shell = await startChromiumShell({ core, headless: true });
    const { page } = shell;
    await page.getByRole('heading', { level: 1, name: 'Balances' }).waitFor();
    await page.getByTestId('status-connection').getByText('Starting the sandbox…').waitFor();
    await page
      .getByTestId('balances-starting')
      .getByText(/Starting the sandbox…/)
      .waitFor();
    expect(await page.locator('table.wallets').count()).toBe(0);

    g.open();
    await page
      .getByRole('table', { name: 'UGX wallets' })
      .getByRole('row', { name: /Actual/ })
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('status-connection').getByText('Online').waitFor();
    expect(await page.getByTestId('balances-starting').count()).toBe(0);
  }, 90_000);
});
