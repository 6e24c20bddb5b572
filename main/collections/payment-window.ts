// The payment window is a shell concern (Electron BrowserWindow or a Chromium browser context); the
// charge flow only needs this port. DESIGN.md: no preload, own in-memory session, popups denied,
// https only (loopback http allowed for the embedded sandbox), redirect intercepted before it loads.
export type PaymentWindowResult =
  | { kind: 'redirect'; url: string } // the redirect URL, captured before it loaded
  | { kind: 'closed' } // the agent closed the window first
  | { kind: 'error'; message: string };

export interface PaymentWindowOpener {
  open(options: {
    paymentUrl: string;
    redirectUrl: string;
    title: string;
    signal?: AbortSignal;
  }): Promise<PaymentWindowResult>;
}
