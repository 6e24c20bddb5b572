// The Chromium shell's main window, in real Chromium with the real core (embedded sandbox, SQLite):
// the renderer is served from the app origin with the CSP, window.desk reaches the one dispatch,
// push events arrive, and the window cannot leave the app or be used by other pages.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import {
  APP_ORIGIN,
  CHROMIUM_FLAGS,
  PROFILE_PREFIX,
  chromiumFlags,
  removeStaleProfiles,
  serveRendererFile,
  startChromiumShell,
  type ChromiumShell,
} from '../../main/shell/chromium.js';

// A stand-in renderer (the real one is exercised by the e2e tests): the shell only serves files.
function fakeRenderer(dir: string): string {
  const root = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'index.html'),
    '<!doctype html><title>t</title><script type="module" src="./assets/app.js"></script><h1>app</h1>',
  );
  fs.writeFileSync(path.join(root, 'assets/app.js'), 'window.__loaded = true;');
  fs.writeFileSync(path.join(dir, 'outside.txt'), 'secret outside the renderer');
  return root;
}

let core: Core;
let shell: ChromiumShell;
let base: string;
let cdpPort: number;
const warnings: string[] = [];
let crashedProfile: string;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(String(r.stdout));
}

/** Local addresses listening on a TCP port, from /proc/net/tcp and tcp6 (hex "0100007F:1F90"). */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(f)) continue;
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(':' + hexPort) && state === '0A') out.push(local.split(':')[0]!);
    }
  }
  return out;
}

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'md-shell-'));
  // What a crashed start leaves behind: a profile folder whose owner is gone.
  crashedProfile = fs.mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${deadPid()}-`));
  fs.writeFileSync(path.join(crashedProfile, 'Cookies'), 'left by a crash');
  core = await composeCore({
    dataDir: path.join(base, 'data'),
    logger: silentLogger(),
    poll: false,
    paymentWindow: () => shell?.paymentWindow() ?? null,
  });
  cdpPort = await freePort();
  shell = await startChromiumShell({
    core,
    headless: true,
    rendererDir: fakeRenderer(base),
    cdpPort,
    warn: (l) => warnings.push(l),
  });
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
    const info = await shell.page.evaluate(() =>
      (window as unknown as { desk: { invoke(c: string, r: unknown): Promise<unknown> } }).desk.invoke('app.info', {}),
    );
    expect(info).toMatchObject({ ok: true, value: { shell: 'chromium', profile: 'embedded', dataDir: core.dataDir } });
    const bad = await shell.page.evaluate(() =>
      (window as unknown as { desk: { invoke(c: string, r: unknown): Promise<unknown> } }).desk.invoke(
        'balances.history',
        { currency: 'x' },
      ),
    );
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation', field: 'currency' } });
  });

  it('delivers push events to window.desk.on listeners', async () => {
    await shell.page.evaluate(() => {
      const w = window as unknown as { desk: { on(e: string, l: (p: unknown) => void): () => void }; __got: unknown[] };
      w.__got = [];
      w.desk.on('app.notice', (p) => w.__got.push(p));
    });
    core.events.emit('notice', { level: 'info', message: 'hello from main' });
    await expect
      .poll(() => shell.page.evaluate(() => (window as unknown as { __got: unknown[] }).__got))
      .toEqual([{ level: 'info', message: 'hello from main' }]);
  });

  it("holds back a pulled batch's notice while no screen listens, and tells a screen that starts listening that many changed", async () => {
    type W = {
      desk: {
        on(e: string, l: (p: unknown) => void): () => void;
        invoke(c: string, r: unknown): Promise<unknown>;
      };
      __updates: unknown[];
      __notices: unknown[];
    };
    // The window listens for notices only; once it has called main after that, main knows it.
    await shell.page.evaluate(async () => {
      const w = window as unknown as W;
      w.__updates = [];
      w.__notices = [];
      w.desk.on('app.notice', (p) => w.__notices.push(p));
      await w.desk.invoke('app.info', {});
    });
    const batch = (status: string) => ({ changed: [{ id: 1, reference: 'MD-HELD-1', status }], many: false });
    core.events.emit('collections.changed', batch('paid'));
    core.events.emit('notice', { level: 'info', message: 'after the batch' });
    await expect
      .poll(() => shell.page.evaluate(() => (window as unknown as W).__notices))
      .toContainEqual({ level: 'info', message: 'after the batch' });
    // A screen opens and listens: the change it may have missed is told as "many changed" (read again).
    await shell.page.evaluate(() => {
      const w = window as unknown as W;
      w.desk.on('collections.updated', (p) => w.__updates.push(p));
    });
    await expect
      .poll(() => shell.page.evaluate(() => (window as unknown as W).__updates))
      .toEqual([{ changed: [], many: true }]);
    // From now on it hears each batch as it is.
    core.events.emit('collections.changed', batch('failed'));
    await expect
      .poll(() => shell.page.evaluate(() => (window as unknown as W).__updates))
      .toEqual([{ changed: [], many: true }, batch('failed')]);
  });

  it('window.desk cannot be replaced by page script', async () => {
    const r = await shell.page.evaluate(() => {
      try {
        (window as unknown as { desk: unknown }).desk = { invoke: () => 'evil' };
      } catch {
        /* strict mode would throw */
      }
      return (
        typeof (window as unknown as { desk: { invoke: unknown } }).desk.invoke === 'function' &&
        (window as unknown as { desk: object }).desk !== null
      );
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

  it('removed the profile folder a crashed start left in the temp folder', () => {
    expect(fs.existsSync(crashedProfile)).toBe(false);
  });

  it('opens the debugging port on loopback only, and says so', async () => {
    const addrs = listeners(cdpPort);
    expect(addrs.length).toBeGreaterThan(0);
    // 127.0.0.1 (tcp) or ::1 (tcp6); never 0.0.0.0 or ::
    expect(addrs.every((a) => a === '0100007F' || a === '00000000000000000000000001000000')).toBe(true);
    expect(warnings.filter((w) => w.includes(`debugging port is open on 127.0.0.1:${cdpPort}`))).toHaveLength(1);
  });

  it('turns the Chromium sandbox off only as root, and says so once', () => {
    const root = process.getuid?.() === 0;
    expect(warnings.filter((w) => w.includes('--no-sandbox'))).toHaveLength(root ? 1 : 0);
    expect(chromiumFlags(0)).toContain('--no-sandbox');
    expect(chromiumFlags(1000)).not.toContain('--no-sandbox');
    expect(CHROMIUM_FLAGS).not.toContain('--no-sandbox');
  });

  it('has a payment window for the core while it runs', () => {
    expect(shell.paymentWindow()).not.toBeNull();
    expect(core.shell).toBe('chromium');
  });
});

describe('serveRendererFile', () => {
  it('serves files inside the renderer folder only', async () => {
    const dir = tempDir();
    const root = fakeRenderer(dir);
    expect((await serveRendererFile(root, `${APP_ORIGIN}/`)).status).toBe(200);
    expect((await serveRendererFile(root, `${APP_ORIGIN}/assets/app.js`)).headers['content-type']).toMatch(
      /javascript/,
    );
    for (const evil of [
      '/../outside.txt',
      '/%2e%2e/outside.txt',
      '/assets/%2e%2e/%2e%2e/outside.txt',
      '/..%2foutside.txt',
      '/%00',
      '/nope.js',
    ]) {
      const r = await serveRendererFile(root, `${APP_ORIGIN}${evil}`);
      expect(r.status, evil).toBe(404);
      expect(r.body.toString()).not.toContain('secret');
    }
  });
});

describe('removeStaleProfiles', () => {
  it("removes only our folders whose owner pid is gone: not a running start's, not other names", () => {
    const dir = tempDir();
    const dead = path.join(dir, `${PROFILE_PREFIX}${deadPid()}-abc123`);
    const mine = path.join(dir, `${PROFILE_PREFIX}${process.pid}-def456`);
    const other = path.join(dir, `${PROFILE_PREFIX}1-ghi789`); // pid 1 is alive
    const unrelated = path.join(dir, 'merchant-desk-chromium-notapid');
    for (const d of [dead, mine, other, unrelated]) fs.mkdirSync(d);
    fs.writeFileSync(path.join(dead, 'Preferences'), '{}');
    expect(removeStaleProfiles(dir)).toEqual([dead]);
    expect([dead, mine, other, unrelated].map((d) => fs.existsSync(d))).toEqual([false, true, true, true]);
  });
});
