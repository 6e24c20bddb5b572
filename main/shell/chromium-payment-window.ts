// The payment window of the Chromium shell: a SEPARATE browser context (own cookies and storage, no
// window.desk bridge), popups closed, only https (or loopback http for a local sandbox), and the
// redirect URL captured by routing before it loads. Closing the window first answers 'closed'.
import type { Browser, Route } from 'playwright-core';
import type { Logger } from 'pino';
import type { PaymentWindowOpener, PaymentWindowResult } from '../collections/payment-window.js';
import { isRedirectUrl } from '../collections/redirect-url.js';
import { isAllowedPaymentUrl } from './payment-url.js';

export interface ChromiumPaymentWindowOptions {
  browser: Browser;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Whether http on 127.0.0.1/localhost is allowed (the embedded or a local sandbox). */
  allowLoopbackHttp: () => boolean;
  /** Called with the page once it is open (tests drive the hosted page through it). */
  onOpen?: (page: import('playwright-core').Page) => void;
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

  async open(options: { paymentUrl: string; redirectUrl: string; title: string; signal?: AbortSignal }): Promise<PaymentWindowResult> {
    const allowLoopbackHttp = this.opts.allowLoopbackHttp();
    if (!isAllowedPaymentUrl(options.paymentUrl, { allowLoopbackHttp })) {
      return { kind: 'error', message: 'the payment page address is not https; it was not opened' };
    }
    if (options.signal?.aborted) return { kind: 'closed' };
    const context = await this.opts.browser.newContext({
      acceptDownloads: false,
      serviceWorkers: 'block',
      permissions: [],
      viewport: { width: 900, height: 760 },
    });
    let settle!: (r: PaymentWindowResult) => void;
    const result = new Promise<PaymentWindowResult>((r) => (settle = r));
    let done = false;
    const finish = (r: PaymentWindowResult) => {
      if (done) return;
      done = true;
      settle(r);
    };
    try {
      await context.route('**/*', async (route: Route) => {
        const url = route.request().url();
        if (isRedirectUrl(url, options.redirectUrl)) {
          // Captured before it loads: the redirect target never receives the request.
          finish({ kind: 'redirect', url });
          await route.abort('aborted').catch(() => {});
          return;
        }
        if (isAllowedPaymentUrl(url, { allowLoopbackHttp }) || url.startsWith('data:')) {
          await route.continue().catch(() => {});
          return;
        }
        this.opts.logger?.warn({ url: url.slice(0, 200) }, 'payment window: blocked a request that is not https');
        await route.abort('blockedbyclient').catch(() => {});
      });
      const page = await context.newPage();
      // Playwright does not route the hops of an HTTP redirect (the hosted page's form POST answers 302
      // and the network stack follows it; route() sees the hop only by a race), so the redirect URL is
      // also caught from the 3xx answer's Location and from the hop's request event; the window is then
      // closed at once (finally below), before the redirect target can load.
      const catchRedirect = (url: string) => {
        if (isRedirectUrl(url, options.redirectUrl)) finish({ kind: 'redirect', url });
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
        if (!done) finish({ kind: 'error', message: `the payment page did not load: ${(e as Error).message.split('\n')[0]}` });
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
