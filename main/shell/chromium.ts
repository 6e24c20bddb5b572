// The Chromium shell: the same Core in a Chromium window driven by playwright-core (system Chromium).
// The renderer is served from a fixed app origin by request routing (no file://, no local server);
// window.desk is installed by an init script and bridged to the one IPC dispatch with exposeBinding.
// The payment window is a separate browser context with no bridge (see ChromiumPaymentWindow).
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Frame, Page, Route } from 'playwright-core';
import type { Core } from '../app/core.js';
import { rendererDir as defaultRendererDir } from '../app/paths.js';
import { createDispatcher, type Dispatch } from '../ipc/dispatch.js';
import { logFilePath } from '../log/logger.js';
import { lockGate } from '../ipc/lock-gate.js';
import { buildHandlers } from '../ipc/handlers/index.js';
import { pushToRenderer } from '../ipc/push.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import { ChromiumPaymentWindow } from './chromium-payment-window.js';
import { PaymentPages } from './payment-pages.js';
import { launchChromium, type LaunchedChromium, type LaunchOptions } from './chromium-launch.js';
import { serveRendererFile } from './serve.js';
import { asWireText } from './wire.js';
import { heardPushes } from './heard-pushes.js';
import { DeskError } from '../errors.shared.js';

export { serveRendererFile } from './serve.js';
export {
  CHROMIUM_FLAGS,
  chromiumExecutable,
  chromiumFlags,
  needsNoSandbox,
  removeStaleProfiles,
  PROFILE_PREFIX,
  launchChromium,
  type LaunchedChromium,
  type LaunchOptions,
} from './chromium-launch.js';

/** The renderer's origin. *.localhost is a secure context and never leaves the machine; every request is routed. */
export const APP_ORIGIN = 'http://merchant-desk.localhost';
const APP_URL = `${APP_ORIGIN}/index.html`;

export interface ChromiumShellOptions extends LaunchOptions {
  core: Core;
  /** A browser launched beforehand (while the core was being composed); default: launch one now. */
  launched?: LaunchedChromium;
  /** The built renderer (default dist/renderer). */
  rendererDir?: string;
  /** First screen, e.g. 'balances'. */
  startPath?: string;
}

export interface ChromiumShell {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  dispatch: Dispatch;
  /** e.g. http://127.0.0.1:9222 when cdpPort was given. */
  cdpUrl: string | null;
  /** Resolves when the window is closed (by the user or close()). */
  closed: Promise<void>;
  /** The payment window of this browser while it runs (null once closed): give it to composeCore. */
  paymentWindow(): PaymentWindowOpener | null;
  close(): Promise<void>;
}

/**
 * The init script: window.desk (invoke + on) over the exposed binding; __deskEmit receives pushes.
 * Kept as source text (not a function) so no compiler helper (e.g. esbuild's __name) leaks into it.
 */
const DESK_INIT_SCRIPT = `(() => {
  const listeners = new Map();
  // Main holds back a push nobody listens for (heard-pushes.ts): it is told which events have listeners,
  // once per turn when that changed. Before the binding is there main sends everything, as before.
  let told = '';
  let telling = false;
  const tell = () => {
    if (telling) return;
    telling = true;
    queueMicrotask(() => {
      telling = false;
      const names = JSON.stringify([...listeners].filter(([, set]) => set.size > 0).map(([name]) => name).sort());
      const fn = window.__deskHear;
      if (names === told || typeof fn !== 'function') return;
      told = names;
      fn(names).catch(() => {});
    });
  };
  const desk = {
    invoke(channel, request) {
      const fn = window.__deskInvoke;
      if (typeof fn !== 'function') return Promise.resolve({ ok: false, error: { kind: 'internal', message: 'the app bridge is not ready' } });
      // An answer comes as JSON text when it is plain data (wire.ts), else as a value Playwright serialised.
      return fn(String(channel), request === undefined ? {} : request).then((r) => (typeof r === 'string' ? JSON.parse(r) : r));
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) { set = new Set(); listeners.set(event, set); }
      set.add(listener);
      if (set.size === 1) tell();
      return () => { if (set.delete(listener) && set.size === 0) tell(); };
    },
  };
  Object.defineProperty(window, 'desk', { value: Object.freeze(desk), writable: false, configurable: false });
  Object.defineProperty(window, '__deskEmit', {
    value: (name, payload) => {
      for (const l of listeners.get(name) || []) {
        try { l(payload); } catch (e) { console.error(e); }
      }
    },
    writable: false,
    configurable: false,
  });
})();`;

// As text for the same reason as the init script. The pushes of one turn of main's event loop (the
// sync's notice of a batch and the status it moved) go in one evaluate: each one is a round trip to the
// page and a task of its own there.
const PUSH = new Function(
  'list',
  'const f = window.__deskEmit; if (typeof list === "string") list = JSON.parse(list); ' +
    'if (typeof f === "function") for (const [name, payload] of list) f(name, payload);',
) as (list: string | readonly (readonly [string, unknown])[]) => void;

export async function startChromiumShell(opts: ChromiumShellOptions): Promise<ChromiumShell> {
  const { core } = opts;
  const root = path.resolve(opts.rendererDir ?? defaultRendererDir());
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    await opts.launched?.close(core.logger);
    throw new DeskError(
      'unavailable',
      `the renderer is not built (${path.join(root, 'index.html')} is missing); run "npm run build"`,
      {
        expose: true,
      },
    );
  }
  const launched = opts.launched ?? (await launchChromium({ logger: core.logger, ...opts }));
  const { browser, context, firstPage } = launched;
  try {
    core.shell = 'chromium';
    let paymentWindow: PaymentWindowOpener | null = new ChromiumPaymentWindow({
      browser,
      logger: core.logger,
      pages: new PaymentPages(core.queries),
    });
    const dispatch = createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock), logFilePath(core.dataDir));
    const page = firstPage ?? (await context.newPage());
    // Only the app's own main frame may call main.
    const fromApp = (source: { page: Page; frame: Frame }) =>
      source.page === page && source.frame === page.mainFrame() && source.frame.url().startsWith(APP_ORIGIN + '/');
    const heard = heardPushes();
    let pushes: (readonly [string, unknown])[] = [];
    const queuePush = (name: string, payload: unknown) => {
      if (page.isClosed()) return;
      pushes.push([name, payload] as const);
      if (pushes.length > 1) return;
      setImmediate(() => {
        const list = pushes;
        pushes = [];
        if (!page.isClosed()) page.evaluate(PUSH, asWireText(list)).catch(() => {});
      });
    };
    // Independent of each other (none applies before the page navigates): one round trip, not three.
    await Promise.all([
      context.route('**/*', async (route: Route) => {
        const url = route.request().url();
        if (url.startsWith(APP_ORIGIN + '/')) {
          const r = await serveRendererFile(root, url);
          await route.fulfill({ status: r.status, headers: r.headers, body: r.body });
        } else if (route.request().isNavigationRequest()) {
          // The main window never leaves the app: a 204 answer cancels the navigation and the app stays.
          core.logger.warn({ url: url.slice(0, 200) }, 'blocked a navigation away from the app');
          await route.fulfill({ status: 204, body: '' });
        } else {
          core.logger.warn({ url: url.slice(0, 200) }, 'blocked a request from the app window');
          await route.abort('blockedbyclient');
        }
      }),
      context.exposeBinding('__deskInvoke', async (source, channel: unknown, request: unknown) => {
        if (!fromApp(source)) {
          core.logger.warn({ url: source.frame.url().slice(0, 200) }, 'refused an IPC call from outside the app');
          return { ok: false, error: { kind: 'forbidden', message: 'not allowed from this page' } };
        }
        return asWireText(await dispatch(channel, request));
      }),
      context.exposeBinding('__deskHear', (source, names: unknown) => {
        if (fromApp(source)) for (const [name, payload] of heard.heard(names)) queuePush(name, payload);
      }),
      context.addInitScript({ content: DESK_INIT_SCRIPT }),
    ]);
    // Popups and extra windows are refused.
    context.on('page', (p) => {
      if (p !== page) void p.close();
    });
    page.on('dialog', (d) => void d.dismiss());

    const unsubscribe = pushToRenderer(core.events, (name, payload) => {
      if (heard.admit(name)) queuePush(name, payload);
    });

    let resolveClosed!: () => void;
    const closed = new Promise<void>((r) => (resolveClosed = r));
    page.on('close', () => resolveClosed());
    browser.on('disconnected', () => resolveClosed());

    await page.goto(`${APP_URL}#/${opts.startPath ?? 'balances'}`);
    let closing: Promise<void> | null = null;
    return {
      browser,
      context,
      page,
      dispatch,
      cdpUrl: launched.cdpPort !== undefined ? `http://127.0.0.1:${launched.cdpPort}` : null,
      closed,
      paymentWindow: () => paymentWindow,
      close: () =>
        (closing ??= (async () => {
          unsubscribe();
          paymentWindow = null;
          await launched.close(core.logger);
          resolveClosed();
        })()),
    };
  } catch (e) {
    await launched.close(core.logger);
    throw e;
  }
}
