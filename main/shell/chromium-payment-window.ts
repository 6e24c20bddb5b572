// The payment window of the Chromium shell: a SEPARATE browser context (own cookies and storage, no
// window.desk bridge), popups closed, only https (or loopback http for a local sandbox), top-level pages
// only on the active profile's payment-page origins, and the redirect URL captured by routing before it
// loads. Closing the window first answers 'closed'.
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { Logger } from 'pino';
import type { PaymentWindowOpener, PaymentWindowResult } from '../collections/payment-window.js';
import { isRedirectUrl } from '../collections/redirect-url.js';
import { isAllowedPaymentUrl, isPaymentPageUrl, type PaymentPageScope } from './payment-url.js';

export interface ChromiumPaymentWindowOptions {
  browser: Browser;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** The active profile's payment-page origins (PaymentPages); the payment URL being opened is added to them. */
  pages: { scope(): PaymentPageScope; remember?(paymentUrl: string): void };
  /** Called with the page once it is open (tests drive the hosted page through it). */
  onOpen?: (page: import('playwright-core').Page) => void;
}

/** The window's one result: the first of redirect, closed or error wins; later ones are ignored. */
function firstResult(): {
  result: Promise<PaymentWindowResult>;
  finish(r: PaymentWindowResult): void;
  done(): boolean;
} {
  let settle!: (r: PaymentWindowResult) => void;
  const result = new Promise<PaymentWindowResult>((r) => (settle = r));
  let done = false;
  return {
    result,
    finish(r) {
      if (done) return;
      done = true;
      settle(r);
    },
    done: () => done,
  };
}

/**
 * Routes every request of the window's context: the redirect URL is captured before it loads, top-level
 * pages only on the payment-page origins, other requests only https (or loopback http for a local sandbox).
 */
function guardRequests(
  context: BrowserContext,
  o: {
    redirectUrl: string;
    scope: PaymentPageScope;
    logger: ChromiumPaymentWindowOptions['logger'];
    finish(r: PaymentWindowResult): void;
  },
): Promise<unknown> {
  const allowLoopbackHttp = o.scope.allowLoopbackHttp;
  return context.route('**/*', async (route: Route) => {
    const url = route.request().url();
    if (isRedirectUrl(url, o.redirectUrl)) {
      // Captured before it loads: the redirect target never receives the request.
      o.finish({ kind: 'redirect', url });
      await route.abort('aborted').catch(() => {});
      return;
    }
    const req = route.request();
    if (req.isNavigationRequest() && isTopFrame(req)) {
      // The window itself only ever shows the service's pages.
      if (isPaymentPageUrl(url, o.scope)) {
        await route.continue().catch(() => {});
        return;
      }
      o.logger?.warn({ url: url.slice(0, 200) }, 'payment window: blocked a page outside the payment-page origins');
      await route.abort('blockedbyclient').catch(() => {});
      return;
    }
    if (isAllowedPaymentUrl(url, { allowLoopbackHttp }) || url.startsWith('data:')) {
      await route.continue().catch(() => {});
      return;
    }
    o.logger?.warn({ url: url.slice(0, 200) }, 'payment window: blocked a request that is not https');
    await route.abort('blockedbyclient').catch(() => {});
  });
}

/**
 * Playwright does not route the hops of an HTTP redirect (the hosted page's form POST answers 302 and the
 * network stack follows it; route() sees the hop only by a race), so the redirect URL is also caught from
 * the 3xx answer's Location and from the hop's request event; the window is then closed at once (open's
 * finally), before the redirect target can load.
 */
function catchRedirectHops(page: Page, redirectUrl: string, finish: (r: PaymentWindowResult) => void): void {
  const catchRedirect = (url: string) => {
    if (isRedirectUrl(url, redirectUrl)) finish({ kind: 'redirect', url });
  };
  page.on('response', (res) => {
    const status = res.status();
    const loc = status >= 300 && status < 400 ? res.headers()['location'] : undefined;
    if (!loc) return;
    try {
      catchRedirect(/^https?:\/\//i.test(loc) ? loc : new URL(loc, res.url()).href);
    } catch {
      /* not a URL: nothing to catch */
    }
  });
  page.on('request', (req) => catchRedirect(req.url()));
}

export class ChromiumPaymentWindow implements PaymentWindowOpener {
  /** The page of the open payment window, if any (e2e tests use it). */
  current: import('playwright-core').Page | null = null;
  readonly #listeners = new Set<(page: import('playwright-core').Page) => void>();

  constructor(private readonly opts: ChromiumPaymentWindowOptions) {}

  /** Subscribe to payment windows opening; returns the unsubscribe function. */
  onOpen(fn: (page: import('playwright-core').Page) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  async open(options: {
    paymentUrl: string;
    redirectUrl: string;
    title: string;
    signal?: AbortSignal;
  }): Promise<PaymentWindowResult> {
    const base = this.opts.pages.scope();
    // The payment URL is what initialize returned: its origin joins the base URL's domain.
    const scope: PaymentPageScope = { ...base, paymentUrls: [...(base.paymentUrls ?? []), options.paymentUrl] };
    if (!isPaymentPageUrl(options.paymentUrl, scope)) {
      return {
        kind: 'error',
        message: 'the payment page address is not an https address without credentials; it was not opened',
      };
    }
    this.opts.pages.remember?.(options.paymentUrl);
    if (options.signal?.aborted) return { kind: 'closed' };
    const context = await this.opts.browser.newContext({
      acceptDownloads: false,
      serviceWorkers: 'block',
      permissions: [],
      viewport: { width: 900, height: 760 },
    });
    const { result, finish, done } = firstResult();
    try {
      await guardRequests(context, { redirectUrl: options.redirectUrl, scope, logger: this.opts.logger, finish });
      const page = await context.newPage();
      catchRedirectHops(page, options.redirectUrl, finish);
      this.current = page;
      context.on('page', (p) => {
        if (p !== page) void p.close(); // popups denied
      });
      page.on('dialog', (d) => void d.dismiss());
      page.on('close', () => finish({ kind: 'closed' }));
      const onAbort = () => finish({ kind: 'closed' });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      for (const l of this.#listeners) l(page);
      this.opts.onOpen?.(page);
      page.goto(options.paymentUrl).catch((e: unknown) => {
        if (!done())
          finish({ kind: 'error', message: `the payment page did not load: ${(e as Error).message.split('\n')[0]}` });
      });
      const r = await result;
      options.signal?.removeEventListener('abort', onAbort);
      return r;
    } finally {
      this.current = null;
      await context.close().catch(() => {});
    }
  }
}

function isTopFrame(req: import('playwright-core').Request): boolean {
  try {
    return req.frame().parentFrame() === null;
  } catch {
    return true; // no frame (a worker's request): judge it as strictly as a page
  }
}
