// The payment window of the Chromium shell: a SEPARATE browser context (own cookies and storage, no
// window.desk bridge), popups closed, only https (or loopback http for a local sandbox), top-level pages
// only on the active profile's payment-page origins, and the redirect URL captured by routing before it
// loads. Closing the window first answers 'closed'.
import type { APIResponse, Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { Logger } from 'pino';
import type { PaymentWindowOpener, PaymentWindowResult } from '../collections/payment-window.js';
import { isRedirectUrl } from '../collections/redirect-url.js';
import { isAllowedPaymentUrl, isPaymentPageUrl, type PaymentPageScope } from './payment-url.js';
import { messageOf } from '../errors.shared.js';

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
        if (req.method() === 'POST') await submitPaymentForm(route, o);
        else await route.continue().catch(() => {});
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

/** Where a 3xx answer sends the window (its Location, made absolute against the answer's URL), or null. */
function redirectTarget(status: number, headers: Record<string, string>, base: string): string | null {
  const loc = status >= 300 && status < 400 ? headers['location'] : undefined;
  if (!loc) return null;
  try {
    return /^https?:\/\//i.test(loc) ? loc : new URL(loc, base).href;
  } catch {
    return null; // not a URL: nothing to catch
  }
}

/**
 * A form the service's page posts (Pay, Cancel payment, a one-time code) is sent from here with its
 * redirect not followed. The answer that ends a payment is a 302 to the redirect URL, and the hop of a
 * redirect the browser follows is not routed (Playwright routes a request's first URL only): the shop was
 * asked for the redirect, signatures and all, and the window showed the shop's page (or Chromium's error
 * page for it) until it closed. Now the redirect URL is taken from the answer's Location and the window
 * stays on the page it shows; any other answer goes to the window as it came. A form is never sent twice:
 * an answer that does not come is a page that did not load.
 */
async function submitPaymentForm(
  route: Route,
  o: { redirectUrl: string; finish(r: PaymentWindowResult): void },
): Promise<void> {
  let answer: APIResponse;
  try {
    answer = await route.fetch({ maxRedirects: 0 });
  } catch {
    await route.abort('failed').catch(() => {});
    return;
  }
  const target = redirectTarget(answer.status(), answer.headers(), route.request().url());
  if (target !== null && isRedirectUrl(target, o.redirectUrl)) {
    o.finish({ kind: 'redirect', url: target });
    await route.fulfill({ status: 204 }).catch(() => {}); // the window stays where it was, and closes
    return;
  }
  await route.fulfill({ response: answer }).catch(() => {});
}

/**
 * Playwright does not route the hops of an HTTP redirect the browser follows (a page of the service loaded
 * by GET that answers 3xx; a form's answer no longer is one: submitPaymentForm), so the redirect URL is
 * also caught from the 3xx answer's Location and from the hop's request event; the window is then closed
 * at once (open's finally), before the redirect target can load.
 */
function catchRedirectHops(page: Page, redirectUrl: string, finish: (r: PaymentWindowResult) => void): void {
  const catchRedirect = (url: string) => {
    if (isRedirectUrl(url, redirectUrl)) finish({ kind: 'redirect', url });
  };
  page.on('response', (res) => {
    const target = redirectTarget(res.status(), res.headers(), res.url());
    if (target !== null) catchRedirect(target);
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
          finish({ kind: 'error', message: `the payment page did not load: ${messageOf(e).split('\n')[0]}` });
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
