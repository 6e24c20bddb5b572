// The Chromium shell's main window, in real Chromium with the real core (embedded sandbox, SQLite):
// the renderer is served from the app origin with the CSP, window.desk reaches the one dispatch,
// push events arrive, and the window cannot leave the app or be used by other pages.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/compose.js';
import type { Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { APP_ORIGIN, serveRendererFile, startChromiumShell, type ChromiumShell } from '../../main/shell/chromium.js';

// A stand-in renderer (the real one is exercised by the e2e tests): the shell only serves files.
function fakeRenderer(dir: string): string {
  const root = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title><script type="module" src="./assets/app.js"></script><h1>app</h1>');
  fs.writeFileSync(path.join(root, 'assets/app.js'), 'window.__loaded = true;');
  fs.writeFileSync(path.join(dir, 'outside.txt'), 'secret outside the renderer');
  return root;
}

let core: Core;
let shell: ChromiumShell;
let base: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'md-shell-'));
  core = await composeCore({ dataDir: path.join(base, 'data'), logger: silentLogger(), poll: false });
  shell = await startChromiumShell({ core, headless: true, rendererDir: fakeRenderer(base) });
}, 90_000);

afterAll(async () => {
  await shell?.close();
  await core?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('Chromium shell main window', () => {
  it('serves the renderer from the app origin (not file://) with the CSP header', async () => {
    const { page } = shell;
    expect(page.url()).toBe(`${APP_ORIGIN}/index.html#/balances`);
    expect(await page.evaluate(() => (window as { __loaded?: boolean }).__loaded)).toBe(true);
    const r = await page.evaluate(async () => {
      const res = await fetch('/index.html');
      return { csp: res.headers.get('content-security-policy'), nosniff: res.headers.get('x-content-type-options') };
    });
    expect(r.csp).toMatch(/default-src 'none'/);
    expect(r.csp).toMatch(/script-src 'self'(;|$)/);
    expect(r.nosniff).toBe('nosniff');
  });

  it('bridges window.desk.invoke to the one dispatch, with validation errors as data', async () => {
    const info = await shell.page.evaluate(() => (window as unknown as { desk: { invoke(c: string, r: unknown): Promise<unknown> } }).desk.invoke('app.info', {}));
    expect(info).toMatchObject({ ok: true, value: { shell: 'chromium', profile: 'embedded', dataDir: core.dataDir } });
    const bad = await shell.page.evaluate(() =>
      (window as unknown as { desk: { invoke(c: string, r: unknown): Promise<unknown> } }).desk.invoke('balances.history', { currency: 'x' }),
    );
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation', field: 'currency' } });
  });

  it('delivers push events to window.desk.on listeners', async () => {
    await shell.page.evaluate(() => {
      const w = window as unknown as { desk: { on(e: string, l: (p: unknown) => void): () => void }; __got: unknown[] };
      w.__got = [];
      w.desk.on('app.notice', (p) => w.__got.push(p));
    });
    core.events.emit('app.notice', { level: 'info', message: 'hello from main' });
    await expect.poll(() => shell.page.evaluate(() => (window as unknown as { __got: unknown[] }).__got)).toEqual([{ level: 'info', message: 'hello from main' }]);
  });

  it('window.desk cannot be replaced by page script', async () => {
    const r = await shell.page.evaluate(() => {
      try {
        (window as unknown as { desk: unknown }).desk = { invoke: () => 'evil' };
      } catch {
        /* strict mode would throw */
      }
      return typeof (window as unknown as { desk: { invoke: unknown } }).desk.invoke === 'function' && (window as unknown as { desk: object }).desk !== null;
    });
    expect(r).toBe(true);
    expect(await shell.page.evaluate(() => Object.isFrozen((window as unknown as { desk: object }).desk))).toBe(true);
  });

  it('does not leave the app: navigation and requests to other origins are blocked, popups closed', async () => {
    const { page } = shell;
    const fetched = await page.evaluate(async () => {
      try {
        await fetch('https://example.com/');
        return 'reached';
      } catch {
        return 'blocked';
      }
    });
    expect(fetched).toBe('blocked');
    await page.evaluate(() => {
      location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(page.url().startsWith(APP_ORIGIN)).toBe(true);
    // Still the app, with its bridge.
    expect(await page.evaluate(() => typeof (window as { desk?: unknown }).desk)).toBe('object');
    await page.evaluate(() => window.open(`${location.origin}/index.html`, '_blank'));
    await page.waitForTimeout(500);
    expect(shell.context.pages()).toEqual([page]);
  });

  it('sets the payment window on the core while it runs', () => {
    expect(core.paymentWindow).not.toBeNull();
    expect(core.shell).toBe('chromium');
  });
});

describe('serveRendererFile', () => {
  it('serves files inside the renderer folder only', async () => {
    const dir = tempDir();
    const root = fakeRenderer(dir);
    expect((await serveRendererFile(root, `${APP_ORIGIN}/`)).status).toBe(200);
    expect((await serveRendererFile(root, `${APP_ORIGIN}/assets/app.js`)).headers['content-type']).toMatch(/javascript/);
    for (const evil of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/%2e%2e/%2e%2e/outside.txt', '/..%2foutside.txt', '/%00', '/nope.js']) {
      const r = await serveRendererFile(root, `${APP_ORIGIN}${evil}`);
      expect(r.status, evil).toBe(404);
      expect(r.body.toString()).not.toContain('secret');
    }
  });
});
