// The Electron shell, built against a fake `electron` module (its binary cannot be downloaded here) and a
// fake core: every item of DESIGN.md's "Electron security" list, read off the options and handlers the
// shell gives Electron, and exercised by calling those handlers as Electron would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../main/log/index.js';
import { createEventBus } from '../../main/app/event-bus.js';
import type { PaymentWindowOpener } from '../../main/collections/payment-window.js';
import type { Core } from '../../main/app/core.js';
import { createIdleLock, PassphraseUnlocker } from '../../main/lock/index.js';
import { MemoryAppSecret } from '../../main/secrets/index.js';
import { systemClock } from '../../main/clock.js';
import { deskOperations } from '../../main/app/desk-operations.js';
import { deskQueries } from '../../main/app/desk-queries.js';

// Electron's handler and option types are what the shell checks against; the fakes take anything.
type Handler = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Options = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const fake = vi.hoisted(() => {
  class Emitter {
    readonly handlers = new Map<string, Handler[]>();
    on(name: string, fn: Handler) {
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), fn]);
      return this;
    }
    once(name: string, fn: Handler) {
      return this.on(name, fn);
    }
    emit(name: string, ...args: unknown[]) {
      for (const fn of this.handlers.get(name) ?? []) fn(...args);
    }
  }
  class FakeSession {
    requestHandler: Handler | null = null;
    checkHandler: Handler | null = null;
    deviceHandler: Handler | null = null;
    beforeRequest: Handler | null = null;
    setPermissionRequestHandler(fn: Handler) {
      this.requestHandler = fn;
    }
    setPermissionCheckHandler(fn: Handler) {
      this.checkHandler = fn;
    }
    setDevicePermissionHandler(fn: Handler) {
      this.deviceHandler = fn;
    }
    webRequest = { onBeforeRequest: (fn: Handler) => (this.beforeRequest = fn) };
    clearStorageData() {
      return Promise.resolve();
    }
  }
  class FakeWebContents extends Emitter {
    openHandler: Handler | null = null;
    sent: unknown[][] = [];
    setWindowOpenHandler(fn: Handler) {
      this.openHandler = fn;
    }
    send(...args: unknown[]) {
      this.sent.push(args);
    }
    isDestroyed() {
      return false;
    }
  }
  class FakeBrowserWindow extends Emitter {
    static all: FakeBrowserWindow[] = [];
    readonly webContents = new FakeWebContents();
    contentProtection: boolean[] = [];
    loaded: string[] = [];
    destroyed = false;
    constructor(readonly options: Options) {
      super();
      FakeBrowserWindow.all.push(this);
    }
    setContentProtection(v: boolean) {
      this.contentProtection.push(v);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    isDestroyed() {
      return this.destroyed;
    }
    destroy() {
      this.destroyed = true;
    }
    show() {}
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
  }
  const state = {
    defaultSession: new FakeSession(),
    partitions: new Map<string, { session: FakeSession; options: unknown }>(),
    protocolHandlers: new Map<string, Handler>(),
    privileged: [] as unknown[],
    ipcHandlers: new Map<string, Handler>(),
    ipcListeners: new Map<string, Handler>(),
    menus: [] as unknown[],
    openExternal: [] as string[],
    app: { isPackaged: true, emitter: new Emitter() },
  };
  return { Emitter, FakeSession, FakeWebContents, FakeBrowserWindow, state };
});

vi.mock('electron', () => {
  const { state, FakeBrowserWindow, FakeSession } = fake;
  return {
    app: {
      get isPackaged() {
        return state.app.isPackaged;
      },
      requestSingleInstanceLock: () => true,
      on: (n: string, fn: Handler) => state.app.emitter.on(n, fn),
      whenReady: () => Promise.resolve(),
      quit: () => {},
    },
    BrowserWindow: FakeBrowserWindow,
    session: {
      get defaultSession() {
        return state.defaultSession;
      },
      fromPartition(partition: string, options: unknown) {
        const s = new FakeSession();
        state.partitions.set(partition, { session: s, options });
        return s;
      },
    },
    protocol: {
      registerSchemesAsPrivileged: (list: unknown[]) => state.privileged.push(...list),
      handle: (scheme: string, fn: Handler) => state.protocolHandlers.set(scheme, fn),
    },
    ipcMain: {
      handle: (channel: string, fn: Handler) => state.ipcHandlers.set(channel, fn),
      removeHandler: (channel: string) => state.ipcHandlers.delete(channel),
      on: (channel: string, fn: Handler) => state.ipcListeners.set(channel, fn),
      removeListener: (channel: string, fn: Handler) =>
        state.ipcListeners.get(channel) === fn && state.ipcListeners.delete(channel),
    },
    shell: { openExternal: (url: string) => (state.openExternal.push(url), Promise.resolve()) },
    dialog: {
      showSaveDialog: () => Promise.resolve({ canceled: true }),
      showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }),
    },
    Menu: {
      buildFromTemplate: (template: unknown) => ({ template }),
      setApplicationMenu: (menu: unknown) => state.menus.push(menu),
    },
  };
});

const { appMenuTemplate, registerAppScheme, runElectronApp, showsCardEntry, startElectronShell, INVOKE, EVENT, HEAR } =
  await import('../../main/shell/electron.js');
type Win = InstanceType<typeof fake.FakeBrowserWindow>;

const BASE_URL = 'https://api.payments.example.com/v1';
let settings = { profile: 'sandbox', baseUrl: BASE_URL } as Record<string, unknown>;
const logger = silentLogger();
const parts = {
  version: '0.0.0-test',
  dataDir: '/nonexistent/data',
  logger,
  settings: () => settings,
  embedded: () => null,
  events: createEventBus(),
  shell: 'none',
  chooseSavePath: null,
  onClose: () => {},
  lock: createIdleLock({
    clock: systemClock,
    idleMs: () => 15 * 60_000,
    unlocker: () => new PassphraseUnlocker(new MemoryAppSecret()),
    checkEveryMs: 0,
  }),
} as unknown as Core;
// Bound as composeCore binds them: the shell reads the settings through the desk's queries.
const core: Core = Object.assign(parts, { operations: deskOperations(parts), queries: deskQueries(parts) });

let win: Win;
/** The payment window the shell made for its main window (what it gives composeCore). */
let paymentWindow: PaymentWindowOpener;
let root: string;
let dir: string;
const preventable = (url: string) => ({ url, prevented: false, preventDefault() { this.prevented = true; } }); // prettier-ignore

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-electron-'));
  root = path.join(dir, 'renderer');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the renderer');
  registerAppScheme();
  ({ paymentWindow } = await startElectronShell(core, { rendererDir: root }));
  win = fake.FakeBrowserWindow.all[0]!;
});

afterAll(() => {
  win?.emit('closed');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('main window', () => {
  it('isolates the renderer: context isolation, sandbox, no Node, web security, the preload only here', () => {
    const wp = win.options.webPreferences;
    expect(wp).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(wp.preload).toMatch(/preload[/\\]index\.js$/);
  });

  it('a packaged build has no DevTools and a minimal menu: edit, window, quit; no View, reload or DevTools', () => {
    expect(win.options.webPreferences.devTools).toBe(false);
    expect(fake.state.menus).toHaveLength(1);
    const flat = JSON.stringify(fake.state.menus[0]);
    expect(flat).toContain('"editMenu"');
    expect(flat).toContain('"quit"');
    for (const role of ['viewMenu', 'toggleDevTools', 'reload', 'forceReload']) expect(flat).not.toContain(`"${role}"`);
    // A development build gets DevTools back (this is what the packaged switch turns off).
    expect(JSON.stringify(appMenuTemplate({ packaged: false, platform: 'linux' }))).toContain('"toggleDevTools"');
    expect(JSON.stringify(appMenuTemplate({ packaged: true, platform: 'darwin' }))).toContain('"appMenu"');
  });

  it('serves the renderer from app:// (a privileged standard scheme), never file://', () => {
    expect(fake.state.privileged).toEqual([
      expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }),
    ]);
    expect(win.loaded).toEqual(['app://merchant-desk/index.html#/balances']);
  });

  it('the app:// protocol serves only files inside the renderer folder, with the CSP', async () => {
    const serve = fake.state.protocolHandlers.get('app')!;
    const ok = (await serve({ url: 'app://merchant-desk/index.html' })) as Response;
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    for (const url of [
      'app://merchant-desk/../../../etc/passwd',
      'app://merchant-desk/..%2f..%2f..%2fetc/passwd',
      'app://merchant-desk/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      'app://merchant-desk/%2e%2e/secret.txt',
      'app://merchant-desk/..%5csecret.txt',
      'app://merchant-desk/%00',
      'app://other-host/index.html',
    ]) {
      const r = (await serve({ url })) as Response;
      expect(r.status, url).toBe(404);
      expect(await r.text(), url).not.toMatch(/root:|outside the renderer/);
    }
    const viaRequest = (await serve(new Request('app://merchant-desk/../../../etc/passwd'))) as Response;
    expect(viaRequest.status).toBe(404);
  });

  it('refuses every network request of the main window but app://', () => {
    const before = fake.state.defaultSession.beforeRequest!;
    const decide = (url: string) => {
      let cancel: boolean | undefined;
      before({ url, resourceType: 'xhr' }, (r: { cancel: boolean }) => (cancel = r.cancel));
      return cancel;
    };
    expect(decide('app://merchant-desk/assets/app.js')).toBe(false);
    expect(decide('https://api.payments.example.com/v1/balance')).toBe(true);
    expect(decide('file:///etc/passwd')).toBe(true);
  });

  it('denies navigation away from the app, webviews and new windows', () => {
    for (const event of ['will-navigate', 'will-redirect']) {
      const away = preventable('https://evil.example/');
      win.webContents.emit(event, away);
      expect(away.prevented, event).toBe(true);
      const file = preventable('file:///etc/passwd');
      win.webContents.emit(event, file);
      expect(file.prevented, event).toBe(true);
      const inside = preventable('app://merchant-desk/index.html#/collections');
      win.webContents.emit(event, inside);
      expect(inside.prevented, event).toBe(false);
    }
    const webview = preventable('https://evil.example/');
    win.webContents.emit('will-attach-webview', webview);
    expect(webview.prevented).toBe(true);
    expect(win.webContents.openHandler!({ url: 'app://merchant-desk/index.html' })).toEqual({ action: 'deny' });
  });

  it("opens in the system browser only https pages on the profile's payment-page origins", () => {
    fake.state.openExternal.length = 0;
    const open = win.webContents.openHandler!;
    for (const url of [
      'https://checkout.example.com/pay/1',
      'https://evil.example/pay',
      'https://example.com.evil.example/pay',
      'http://checkout.example.com/pay/1',
      'https://user:pw@checkout.example.com/',
      'file:///etc/passwd',
      'smb://share/x',
    ]) {
      expect(open({ url }), url).toEqual({ action: 'deny' });
    }
    expect(fake.state.openExternal).toEqual(['https://checkout.example.com/pay/1']);
  });

  it('denies every permission request and check (camera, notifications, devices, ...)', () => {
    const s = fake.state.defaultSession;
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal']) {
      const answer = vi.fn();
      s.requestHandler!(win.webContents, permission, answer, {});
      expect(answer, permission).toHaveBeenCalledWith(false);
      expect(s.checkHandler!(win.webContents, permission, 'app://merchant-desk', {}), permission).toBe(false);
    }
    expect(s.deviceHandler!({ deviceType: 'usb' })).toBe(false);
  });

  it("answers IPC only from the app's own top frame in its own window", async () => {
    const invoke = fake.state.ipcHandlers.get(INVOKE)!;
    const call = (sender: unknown, senderFrame: unknown) => invoke({ sender, senderFrame }, 'app.info', {});
    expect(
      await call(win.webContents, { parent: null, url: 'app://merchant-desk/index.html#/balances' }),
    ).toMatchObject({
      ok: true,
      value: { shell: 'electron', profile: 'sandbox' },
    });
    const refused = { ok: false, error: { kind: 'forbidden' } };
    expect(await call(win.webContents, { parent: null, url: 'https://evil.example/' })).toMatchObject(refused);
    expect(await call(win.webContents, { parent: {}, url: 'app://merchant-desk/index.html' })).toMatchObject(refused); // a sub-frame
    expect(
      await call(new fake.FakeWebContents(), { parent: null, url: 'app://merchant-desk/index.html' }),
    ).toMatchObject(refused); // another window
    expect(await call(win.webContents, null)).toMatchObject(refused);
  });

  it("holds back a pulled batch's notice while no screen listens for it, and tells a screen that starts listening that it missed some", () => {
    const hear = fake.state.ipcListeners.get(HEAR)!;
    const app = { sender: win.webContents, senderFrame: { parent: null, url: 'app://merchant-desk/index.html' } };
    const told = () =>
      win.webContents.sent
        .splice(0)
        .filter((m) => m[0] === EVENT)
        .map((m) => [m[1], m[2]]);
    const batch = { changed: [{ id: 1, reference: 'MD-1', status: 'COMPLETED' }], many: false };
    told();
    core.events.emit('collections.changed', batch);
    expect(told()).toEqual([['collections.updated', batch]]); // until the window says who listens: everything
    hear(app, JSON.stringify(['app.status'])); // Balances: nothing listens for collections
    core.events.emit('collections.changed', batch);
    expect(told()).toEqual([]);
    hear(
      { ...app, senderFrame: { parent: null, url: 'https://evil.example/' } },
      JSON.stringify(['collections.updated']),
    );
    expect(told()).toEqual([]); // only the app's own top frame says it
    hear(app, JSON.stringify(['app.status', 'collections.updated'])); // Collections opens
    expect(told()).toEqual([['collections.updated', { changed: [], many: true }]]);
    core.events.emit('collections.changed', batch);
    expect(told()).toEqual([['collections.updated', batch]]);
  });

  it('hides the window from screen capture while Take payment is shown, and only then', () => {
    win.contentProtection.length = 0;
    win.webContents.emit('did-navigate-in-page', {}, 'app://merchant-desk/index.html#/take-payment', true);
    win.webContents.emit('did-navigate-in-page', {}, 'app://merchant-desk/index.html#/collections', false); // a sub-frame: ignored
    win.webContents.emit('did-navigate-in-page', {}, 'app://merchant-desk/index.html#/balances', true);
    win.webContents.emit('did-navigate', {}, 'app://merchant-desk/index.html#/take-payment');
    expect(win.contentProtection).toEqual([true, false, true]);
    expect(showsCardEntry('app://merchant-desk/index.html#/take-payment?x=1')).toBe(true);
    expect(showsCardEntry('app://merchant-desk/index.html#/take-payment-history')).toBe(false);
    expect(showsCardEntry('not a url')).toBe(false);
  });
});

describe('payment window', () => {
  const REDIRECT = 'https://shop.example/return';
  const PAY = 'https://pay.example.com/p/abc';
  let windows: number;

  beforeEach(() => {
    settings = { profile: 'sandbox', baseUrl: BASE_URL };
    windows = fake.FakeBrowserWindow.all.length;
  });

  function openPayment(paymentUrl = PAY) {
    const result = paymentWindow.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' });
    const w = fake.FakeBrowserWindow.all[fake.FakeBrowserWindow.all.length - 1]!;
    const partition = w.options.webPreferences?.partition as string;
    return { result, w, partition, ses: fake.state.partitions.get(partition)?.session };
  }

  function request(
    ses: InstanceType<typeof fake.FakeSession>,
    url: string,
    resourceType = 'mainFrame',
  ): boolean | undefined {
    let cancel: boolean | undefined;
    ses.beforeRequest!({ url, resourceType }, (r: { cancel: boolean }) => (cancel = r.cancel));
    return cancel;
  }

  it('has no preload, no Node, no DevTools, and a fresh in-memory session of its own', async () => {
    const { result, w, partition } = openPayment();
    const wp = w.options.webPreferences;
    expect(wp.preload).toBeUndefined();
    expect(wp).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      devTools: false,
    });
    expect(partition).toMatch(/^payment-/);
    expect(partition).not.toMatch(/^persist:/);
    expect(fake.state.partitions.get(partition)!.options).toMatchObject({ cache: false });
    expect(w.options.parent).toBe(win);
    expect(w.contentProtection).toEqual([true]);
    w.emit('closed');
    expect(await result).toEqual({ kind: 'closed' });
    // A second payment gets another partition.
    const second = openPayment();
    expect(second.partition).not.toBe(partition);
    second.w.emit('closed');
    await second.result;
  });

  it('denies popups, webviews and permissions', async () => {
    const { result, w, ses } = openPayment();
    expect(w.webContents.openHandler!({ url: 'https://pay.example.com/popup' })).toEqual({ action: 'deny' });
    const webview = preventable('https://pay.example.com/');
    w.webContents.emit('will-attach-webview', webview);
    expect(webview.prevented).toBe(true);
    const answer = vi.fn();
    ses!.requestHandler!(w.webContents, 'media', answer, {});
    expect(answer).toHaveBeenCalledWith(false);
    expect(ses!.checkHandler!(w.webContents, 'notifications', PAY, {})).toBe(false);
    w.emit('closed');
    await result;
  });

  it('captures the redirect URL at the network layer before it loads', async () => {
    const { result, ses } = openPayment();
    const redirect = `${REDIRECT}?merchant_reference=MD-1&transaction_status=COMPLETED`;
    expect(request(ses!, redirect)).toBe(true); // cancelled: the shop's page never receives it
    expect(await result).toEqual({ kind: 'redirect', url: redirect });
  });

  it('captures the redirect URL on will-redirect and will-navigate too', async () => {
    for (const event of ['will-redirect', 'will-navigate']) {
      const { result, w } = openPayment();
      const nav = preventable(`${REDIRECT}?merchant_reference=MD-2`);
      w.webContents.emit(event, nav);
      expect(nav.prevented, event).toBe(true);
      expect(await result, event).toEqual({ kind: 'redirect', url: nav.url });
      expect(w.destroyed).toBe(true);
    }
  });

  it('does not take a look-alike of the redirect URL for it', async () => {
    const { result, w, ses } = openPayment();
    for (const url of [
      `https://shop.example.evil.example/return?x=1`,
      `https://user@shop.example/return?x=1`,
      `https://shop.example/return/../x`,
    ]) {
      expect(request(ses!, url), url).toBe(true); // not a payment page either: blocked
      const nav = preventable(url);
      w.webContents.emit('will-navigate', nav);
      expect(nav.prevented, url).toBe(true);
    }
    w.emit('closed');
    expect(await result).toEqual({ kind: 'closed' });
  });

  it('shows pages only on the payment-page origins and loads nothing that is not https', async () => {
    const { result, w, ses } = openPayment();
    expect(request(ses!, 'https://pay.example.com/p/abc/3ds')).toBe(false);
    expect(request(ses!, 'https://checkout.example.com/p/abc')).toBe(false); // the base URL's domain
    expect(request(ses!, 'https://evil.example/phish')).toBe(true);
    expect(request(ses!, 'http://pay.example.com/p/abc')).toBe(true);
    expect(request(ses!, 'https://cdn.other.example/app.js', 'script')).toBe(false); // sub-resources: https
    expect(request(ses!, 'http://cdn.other.example/app.js', 'script')).toBe(true);
    for (const [url, prevented] of [
      ['https://evil.example/phish', true],
      ['https://pay.example.com.evil.example/', true],
      ['http://pay.example.com/p/abc', true],
      ['https://pay.example.com/p/abc/done', false],
    ] as const) {
      const nav = preventable(url);
      w.webContents.emit('will-navigate', nav);
      expect(nav.prevented, url).toBe(prevented);
    }
    w.emit('closed');
    await result;
  });

  it('refuses to open a payment URL that is not https (loopback http only outside the live profile)', async () => {
    for (const url of [
      'http://pay.example.com/p/1',
      'https://user:pw@pay.example.com/p/1',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      expect(await paymentWindow.open({ paymentUrl: url, redirectUrl: REDIRECT, title: 'Pay' }), url).toMatchObject({
        kind: 'error',
      });
    }
    settings = { profile: 'live', baseUrl: 'https://api.example.com' };
    expect(
      await paymentWindow.open({
        paymentUrl: 'http://127.0.0.1:4010/pay/1',
        redirectUrl: REDIRECT,
        title: 'Pay',
      }),
    ).toMatchObject({
      kind: 'error',
    });
    expect(fake.FakeBrowserWindow.all.length).toBe(windows); // no window was created
  });
});

describe('the app', () => {
  it('gives every web contents it makes no webviews and no new windows, a middle-click included', async () => {
    await runElectronApp({ dataDir: dir, compose: async () => core });
    const contents = new fake.FakeWebContents();
    fake.state.app.emitter.emit('web-contents-created', {}, contents);
    for (const disposition of ['background-tab', 'foreground-tab', 'new-window']) {
      expect(contents.openHandler!({ url: 'https://evil.example/', disposition }), disposition).toEqual({
        action: 'deny',
      });
    }
    const webview = preventable('https://evil.example/');
    contents.emit('will-attach-webview', webview);
    expect(webview.prevented).toBe(true);
  });
});
