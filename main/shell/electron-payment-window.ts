// The payment window of the Electron shell (DESIGN.md "Electron security"): a fresh in-memory partition
// per payment, no preload, permissions denied, popups denied, https only, its pages only on the active
// profile's payment-page origins, the redirect URL captured before it loads, no screen capture.
import crypto from 'node:crypto';
import { BrowserWindow, session, type Session } from 'electron';
import type { Core } from '../app/core.js';
import type { PaymentWindowOpener, PaymentWindowResult } from '../collections/payment-window.js';
import { isRedirectUrl } from '../collections/redirect-url.js';
import { isAllowedPaymentUrl, isPaymentPageUrl, type PaymentPageScope } from './payment-url.js';
import { messageOf } from '../errors.shared.js';

/** Every permission a page may ask for (camera, notifications, USB, ...) is refused, in any session of the app. */
export function denyAllPermissions(s: Session): void {
  s.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  s.setPermissionCheckHandler(() => false);
  s.setDevicePermissionHandler(() => false);
}

/** The payment window: a fresh in-memory partition per payment, no preload, the redirect captured. */
export class ElectronPaymentWindow implements PaymentWindowOpener {
  constructor(
    private readonly parent: BrowserWindow,
    /** The active profile's payment-page origins (PaymentPages). */
    private readonly pages: { scope(): PaymentPageScope; remember?(paymentUrl: string): void },
    private readonly logger?: Core['logger'],
    private readonly devTools = false,
  ) {}

  open(options: {
    paymentUrl: string;
    redirectUrl: string;
    title: string;
    signal?: AbortSignal;
  }): Promise<PaymentWindowResult> {
    const base = this.pages.scope();
    const loopback = base.allowLoopbackHttp;
    // The payment URL is what initialize returned: its origin joins the base URL's domain.
    const scope: PaymentPageScope = { ...base, paymentUrls: [...(base.paymentUrls ?? []), options.paymentUrl] };
    if (!isPaymentPageUrl(options.paymentUrl, scope)) {
      return Promise.resolve({
        kind: 'error',
        message: 'the payment page address is not an https address without credentials; it was not opened',
      });
    }
    this.pages.remember?.(options.paymentUrl);
    // No "persist:" prefix: the partition lives in memory only and is gone with the window.
    const partition = `payment-${crypto.randomUUID()}`;
    const ses = session.fromPartition(partition, { cache: false });
    denyAllPermissions(ses);
    const win = new BrowserWindow({
      parent: this.parent,
      width: 900,
      height: 760,
      title: options.title,
      webPreferences: {
        partition,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        spellcheck: false,
        navigateOnDragDrop: false,
        devTools: this.devTools,
      },
    });
    // The hosted page may ask for a one-time code or the card again: no screen capture here either.
    win.setContentProtection(true);
    return new Promise<PaymentWindowResult>((resolve) => {
      let done = false;
      const finish = (r: PaymentWindowResult) => {
        if (done) return;
        done = true;
        options.signal?.removeEventListener('abort', onAbort);
        if (!win.isDestroyed()) win.destroy();
        void ses.clearStorageData().catch(() => {});
        resolve(r);
      };
      const onAbort = () => finish({ kind: 'closed' });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      // The redirect URL never loads: caught at the network layer and on navigation/redirect events.
      ses.webRequest.onBeforeRequest((details, callback) => {
        if (isRedirectUrl(details.url, options.redirectUrl)) {
          callback({ cancel: true });
          finish({ kind: 'redirect', url: details.url });
          return;
        }
        // The window's own pages only on the payment-page origins; what they load: https (or data:).
        const ok =
          details.resourceType === 'mainFrame'
            ? isPaymentPageUrl(details.url, scope)
            : isAllowedPaymentUrl(details.url, { allowLoopbackHttp: loopback }) || details.url.startsWith('data:');
        if (!ok)
          this.logger?.warn(
            { url: details.url.slice(0, 200) },
            'payment window: blocked a request outside what it may load',
          );
        callback({ cancel: !ok });
      });
      const onNav = (e: { url: string; preventDefault(): void }) => {
        if (isRedirectUrl(e.url, options.redirectUrl)) {
          e.preventDefault();
          finish({ kind: 'redirect', url: e.url });
        } else if (!isPaymentPageUrl(e.url, scope)) {
          e.preventDefault();
        }
      };
      win.webContents.on('will-navigate', onNav);
      win.webContents.on('will-redirect', onNav);
      win.webContents.on('will-attach-webview', (e) => e.preventDefault());
      win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
      win.on('closed', () => finish({ kind: 'closed' }));
      win.loadURL(options.paymentUrl).catch((e: unknown) => {
        if (!done) finish({ kind: 'error', message: `the payment page did not load: ${messageOf(e)}` });
      });
    });
  }
}
