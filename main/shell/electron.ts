// The product shell (Electron). Thin: it builds the Core, serves the renderer from app:// and bridges
// IPC to the one dispatch. DESIGN.md "Electron security": contextIsolation, sandbox, no nodeIntegration,
// CSP, custom protocol, navigation/new windows denied, permissions denied, IPC sender checked,
// openExternal only for https pages on the active profile's payment-page origins. The payment window
// (electron-payment-window.ts): own in-memory partition, no preload, popups denied, https only, its pages
// only on the payment-page origins, the redirect URL intercepted before it loads. Packaged builds: no
// DevTools, a minimal menu.
// Card entry (Take payment, the payment window) is hidden from screen capture where the OS allows.
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  session,
  shell,
  type IpcMainEvent,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type Session,
  type WebContents,
} from 'electron';
import type { Core } from '../app/core.js';
import { appRoot, rendererDir } from '../app/paths.js';
import { createDispatcher } from '../ipc/dispatch.js';
import { logFilePath } from '../log/logger.js';
import { lockGate } from '../ipc/lock-gate.js';
import { buildHandlers } from '../ipc/handlers/index.js';
import { pushToRenderer } from '../ipc/push.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import { isVettedExternalUrl } from './payment-url.js';
import { denyAllPermissions, ElectronPaymentWindow } from './electron-payment-window.js';
import { PaymentPages } from './payment-pages.js';
import { serveRendererFile } from './serve.js';
import { heardPushes } from './heard-pushes.js';
import { closeWithin, leaveSoon, onStopSignals } from '../app/shutdown.js';

const APP_SCHEME = 'app';
const APP_HOST = 'merchant-desk';
const APP_BASE = `${APP_SCHEME}://${APP_HOST}/`;
/** Bridge channel names; preload/index.ts uses the same. */
export const INVOKE = 'desk:invoke';
export const EVENT = 'desk:event';
/** The window says which events it has listeners for (heard-pushes.ts). */
export const HEAR = 'desk:hear';

/** Must run before app 'ready'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The renderer's route (#/take-payment) where a card number is typed. */
const CARD_ENTRY_ROUTE = 'take-payment';

/** Whether the main window shows the card entry screen at this URL (hash routing: app://.../index.html#/take-payment). */
export function showsCardEntry(url: string): boolean {
  try {
    const u = new URL(url);
    return u.hash.replace(/^#\/?/, '').split(/[/?]/, 1)[0] === CARD_ENTRY_ROUTE;
  } catch {
    return false;
  }
}

/**
 * The application menu: copy and paste, window basics and Quit. A packaged build has nothing else (no
 * View menu: no reload, no DevTools); a development build adds reload and DevTools.
 */
export function appMenuTemplate(opts: { packaged: boolean; platform: NodeJS.Platform }): MenuItemConstructorOptions[] {
  const menu: MenuItemConstructorOptions[] = [
    opts.platform === 'darwin' ? { role: 'appMenu' } : { label: 'File', submenu: [{ role: 'quit' }] },
    { role: 'editMenu' },
    { role: 'windowMenu' },
  ];
  if (!opts.packaged) {
    menu.push({ label: 'Develop', submenu: [{ role: 'reload' }, { role: 'toggleDevTools' }] });
  }
  return menu;
}

function lockNavigation(wc: WebContents, allowed: (url: string) => boolean): void {
  wc.on('will-navigate', (e) => {
    if (!allowed(e.url)) e.preventDefault();
  });
  wc.on('will-redirect', (e) => {
    if (!allowed(e.url)) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
}

/** The main window and the payment window opener that belongs to it. */
export interface ElectronShell {
  win: BrowserWindow;
  paymentWindow: ElectronPaymentWindow;
}

/** app:// serves the renderer's files; nothing but app:// leaves the main window's session. */
function serveAppScheme(root: string, ses: Session): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('not found', { status: 404 });
    const r = await serveRendererFile(root, request.url);
    return new Response(new Uint8Array(r.body), { status: r.status, headers: r.headers });
  });
  // Nothing but app:// leaves the main window's session (the service is called from main, not here).
  ses.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !(details.url.startsWith(APP_BASE) || details.url.startsWith('devtools://')) });
  });
}

function createMainWindow(devTools: boolean): BrowserWindow {
  return new BrowserWindow({
    width: 1280,
    height: 820,
    show: false,
    title: 'Merchant Desk',
    backgroundColor: '#f6f7f9',
    webPreferences: {
      preload: path.join(appRoot(), 'dist', 'preload', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
      devTools,
    },
  });
}

/**
 * The main window stays on app://, opens only the service's payment pages (in the system browser), and
 * keeps Take payment out of screen capture.
 */
function guardMainWindow(win: BrowserWindow, pages: PaymentPages, logger: Core['logger']): void {
  const wc = win.webContents;
  lockNavigation(wc, (url) => url.startsWith(APP_BASE));
  wc.setWindowOpenHandler(({ url }) => {
    // Only the service's payment pages go to the system browser; never any other host or scheme.
    if (isVettedExternalUrl(url) && pages.allows(url)) void shell.openExternal(url);
    else logger.warn({ url: url.slice(0, 200) }, 'refused to open a link outside the payment-page origins');
    return { action: 'deny' };
  });
  // Card numbers are typed on Take payment: keep that screen out of screenshots and screen sharing
  // (macOS and Windows honour this; elsewhere it does nothing).
  const protectCardEntry = (url: string) => {
    if (!win.isDestroyed()) win.setContentProtection(showsCardEntry(url));
  };
  wc.on('did-navigate', (_e, url) => protectCardEntry(url));
  wc.on('did-navigate-in-page', (_e, url, isMainFrame) => {
    if (isMainFrame) protectCardEntry(url);
  });
}

/** IPC to the one dispatch, from the app's own top frame only, and the Core's events pushed to the window. */
function bridgeIpc(win: BrowserWindow, core: Core): void {
  const wc = win.webContents;
  const dispatch = createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock), logFilePath(core.dataDir));
  ipcMain.handle(INVOKE, (event: IpcMainInvokeEvent, channel: unknown, request: unknown) => {
    // Only the app's own top frame in our window may call main.
    const frame = event.senderFrame;
    if (event.sender !== wc || !frame || frame.parent !== null || !frame.url.startsWith(APP_BASE)) {
      core.logger.warn({ url: frame?.url?.slice(0, 200) }, 'refused an IPC call from outside the app');
      return { ok: false, error: { kind: 'forbidden', message: 'not allowed from this page' } };
    }
    return dispatch(channel, request);
  });
  // A push nobody in the window listens for is held back, as in the Chromium shell (heard-pushes.ts).
  const heard = heardPushes();
  const send = (name: string, payload: unknown) => {
    if (!wc.isDestroyed()) wc.send(EVENT, name, payload);
  };
  const hear = (event: IpcMainEvent, names: unknown) => {
    const frame = event.senderFrame;
    if (event.sender !== wc || !frame || frame.parent !== null || !frame.url.startsWith(APP_BASE)) return;
    for (const [name, payload] of heard.heard(names)) send(name, payload);
  };
  ipcMain.on(HEAR, hear);
  const unsubscribe = pushToRenderer(core.events, (name, payload) => {
    if (heard.admit(name)) send(name, payload);
  });
  win.on('closed', () => {
    unsubscribe();
    ipcMain.removeHandler(INVOKE);
    ipcMain.removeListener(HEAR, hear);
  });
}

/** The Core's save, open and confirm questions, asked with the OS's own dialogs over the main window. */
function useNativeDialogs(core: Core, win: BrowserWindow): void {
  core.chooseSavePath = async (o) => {
    const r = await dialog.showSaveDialog(win, { title: o.title, defaultPath: o.defaultName, filters: o.filters });
    return r.canceled || !r.filePath ? null : r.filePath;
  };
  core.confirm = async (o) => {
    const r = await dialog.showMessageBox(win, {
      type: 'warning',
      title: o.title,
      message: o.message,
      detail: o.detail,
      buttons: ['Cancel', 'Confirm'],
      defaultId: 0,
      cancelId: 0,
    });
    return r.response === 1;
  };
  core.chooseOpenPath = async (o) => {
    const r = await dialog.showOpenDialog(win, { title: o.title, filters: o.filters, properties: ['openFile'] });
    return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
  };
}

export async function startElectronShell(core: Core, opts: { rendererDir?: string } = {}): Promise<ElectronShell> {
  const root = path.resolve(opts.rendererDir ?? rendererDir());
  const devTools = !app.isPackaged;
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(appMenuTemplate({ packaged: app.isPackaged, platform: process.platform })),
  );
  const pages = new PaymentPages(core.queries);
  const ses = session.defaultSession;
  denyAllPermissions(ses);
  serveAppScheme(root, ses);

  const win = createMainWindow(devTools);
  guardMainWindow(win, pages, core.logger);
  bridgeIpc(win, core);

  core.shell = 'electron';
  const paymentWindow = new ElectronPaymentWindow(win, pages, core.logger, devTools);
  useNativeDialogs(core, win);
  win.once('ready-to-show', () => win.show());
  await win.loadURL(`${APP_BASE}index.html#/balances`);
  return { win, paymentWindow };
}

/** The whole Electron app: single instance, the Core from --data-dir, quit cleanly. */
export async function runElectronApp(opts: {
  dataDir: string;
  /** Builds the Core; paymentWindow returns the main window's payment window once that window exists. */
  compose: (dataDir: string, paymentWindow: () => PaymentWindowOpener | null) => Promise<Core>;
}): Promise<void> {
  registerAppScheme();
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Every web contents starts with no webviews and no new windows (a middle-click on a link or
  // window.open); a window that hands some links on (the main window: payment pages to the system
  // browser) sets its own handler after this one.
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  await app.whenReady();
  // The payment window belongs to the main window, made after the Core: until then a charge finds none.
  let paymentWindow: PaymentWindowOpener | null = null;
  const core = await opts.compose(opts.dataDir, () => paymentWindow);
  // The one way a desk stops (app/shutdown.ts): SIGTERM or SIGINT quits as the menu's Quit and the last
  // window closing do; before quitting, the core closes (in time, whatever backlog the sync drains).
  const stop = onStopSignals(() => app.quit());
  let quitting = false;
  app.on('before-quit', (e) => {
    if (quitting) return;
    e.preventDefault();
    quitting = true;
    void closeWithin(() => core.close(), core.logger).then((clean) => {
      stop.dispose();
      leaveSoon(clean ? 0 : 1, 500, (code) => app.exit(code));
      app.quit();
    });
  });
  app.on('window-all-closed', () => app.quit());
  const { win, paymentWindow: opener } = await startElectronShell(core);
  paymentWindow = opener;
  app.on('second-instance', () => {
    if (win.isMinimized()) win.restore();
    win.focus();
  });
}
