// The Chromium shell's payment window against the real sandbox's hosted page over HTTP, in real
// Chromium: the redirect is captured before it loads, closing answers 'closed', non-https is refused,
// and the window has no bridge to main.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { createServiceClient } from '../../main/service/client.js';
import { buildCardCipher } from '../../main/service/card-cipher.js';
import { validCardData } from '../support/card.js';
import { ChromiumPaymentWindow } from '../../main/shell/chromium-payment-window.js';
import { chromiumExecutable, chromiumFlags } from '../../main/shell/chromium.js';
import { redirectParams } from '../../main/collections/redirect-url.js';

const REDIRECT = 'https://shop.example/return';
let sandbox: Sandbox;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-pw-'));
  sandbox = await startSandbox({ stateDir: dir });
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: chromiumFlags() });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function newPayment(cardNo = '4242424242424242'): Promise<{ paymentUrl: string; reference: string }> {
  const client = createServiceClient({
    baseUrl: sandbox.baseUrl,
    keys: () => ({ publicKey: sandbox.publicKey, secretKey: sandbox.secretKey }),
  });
  const reference = `MD-PW-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const cardCipher = buildCardCipher(
    validCardData({
      first_name: 'Ada',
      last_name: 'Test',
      card_no: cardNo,
      exp_month: '12',
      exp_year: String(new Date().getFullYear() + 2),
      cvv: '123',
    }),

    sandbox.servicePublicKeyPem,
  );
  const r = await client.initialize({
    merchantReference: reference,
    currency: 'UGX',
    amountMinor: 15_000,
    description: 'Phone order 1234',
    cardCipher,
    redirectUrl: REDIRECT,
  });
  return { paymentUrl: r.paymentUrl, reference };
}

function opener(onPage: (p: Page) => Promise<void>, allowLoopbackHttp = true) {
  const w = new ChromiumPaymentWindow({
    browser,
    pages: { scope: () => ({ baseUrl: sandbox.baseUrl, allowLoopbackHttp }) },
  });
  w.onOpen((p) => void onPage(p).catch(() => {}));
  return w;
}

describe('Chromium payment window', () => {
  it('captures the signed redirect before it loads when the card is approved', async () => {
    const { paymentUrl, reference } = await newPayment();
    const w = opener(async (page) => page.getByRole('button', { name: /^Pay / }).click());
    const result = await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' });
    expect(result.kind).toBe('redirect');
    if (result.kind !== 'redirect') return;
    const params = redirectParams(result.url);
    expect(params).toMatchObject({
      merchant_reference: reference,
      transaction_status: 'COMPLETED',
      event: 'transaction.completed',
    });
    expect(params.hmac_signature).toMatch(/^t=\d+,s=[0-9a-f]+$/);
    expect(params.rsa_signature).toBeTruthy();
    expect(w.current).toBeNull(); // the window is gone
  });

  it("the redirect never leaves the window: the shop is not asked for it and the window shows only the service's page", async () => {
    // The hosted page's form POST answers 302 to the redirect URL. Followed by the browser, the hop went to
    // the shop (here a host that does not resolve) and the window showed Chromium's error page for it
    // until it closed: the team e2e's recorder saw chrome-error://chromewebdata/ in a payment window.
    const { paymentUrl } = await newPayment();
    const asked: string[] = [];
    const shown: string[] = [];
    const w = opener(async (page) => {
      page.on('request', (r) => {
        if (r.url().startsWith(REDIRECT)) asked.push(r.url());
      });
      page.on('framenavigated', (f) => {
        if (f === page.mainFrame()) shown.push(f.url());
      });
      await page.getByRole('button', { name: /^Pay / }).click();
    });
    const result = await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' });
    expect(result.kind === 'redirect' && redirectParams(result.url).transaction_status).toBe('COMPLETED');
    expect(asked).toEqual([]);
    expect(shown.every((u) => u === paymentUrl)).toBe(true);
  });

  it('reports a declined card through the same redirect', async () => {
    const { paymentUrl } = await newPayment('4000000000000002');
    const w = opener(async (page) => page.getByRole('button', { name: /^Pay / }).click());
    const result = await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' });
    expect(result.kind === 'redirect' && redirectParams(result.url).transaction_status).toBe('FAILED');
  });

  it("answers 'closed' when the agent closes the window first", async () => {
    const { paymentUrl } = await newPayment();
    const w = opener(async (page) => {
      await page.getByRole('button', { name: 'Cancel payment' }).waitFor();
      await page.close();
    });
    expect(await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' })).toEqual({ kind: 'closed' });
  });

  it('has no bridge to main and cannot open popups', async () => {
    const { paymentUrl } = await newPayment();
    let probe: unknown;
    let pages = 0;
    const w = opener(async (page) => {
      await page.getByRole('button', { name: 'Cancel payment' }).waitFor();
      probe = await page.evaluate(() => ({
        desk: typeof (window as { desk?: unknown }).desk,
        invoke: typeof (window as { __deskInvoke?: unknown }).__deskInvoke,
      }));
      // Chromium may make the popup before the window closes it: wait for it to be made, then closed (on a
      // busy machine either can take a while); a popup left open fails the count below.
      const made = page
        .context()
        .waitForEvent('page', { timeout: 10_000 })
        .catch(() => null);
      await page.evaluate(() => window.open('https://example.com/popup', '_blank'));
      const popup = await made;
      for (const end = Date.now() + 10_000; popup && !popup.isClosed() && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 50));
      pages = page.context().pages().length;
      await page.close();
    });
    await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' });
    expect(probe).toEqual({ desk: 'undefined', invoke: 'undefined' });
    expect(pages).toBe(1);
  });

  it('refuses a payment page that is not https (loopback http only for a local sandbox)', async () => {
    const w = opener(async () => {}, false);
    expect(await w.open({ paymentUrl: 'http://127.0.0.1:1/pay/x', redirectUrl: REDIRECT, title: 'Pay' })).toMatchObject(
      { kind: 'error' },
    );
    const w2 = opener(async () => {}, true);
    expect(
      await w2.open({ paymentUrl: 'http://pay.example.com/pay/x', redirectUrl: REDIRECT, title: 'Pay' }),
    ).toMatchObject({ kind: 'error' });
    expect(
      await w2.open({ paymentUrl: 'https://user:pw@pay.example.com/', redirectUrl: REDIRECT, title: 'Pay' }),
    ).toMatchObject({ kind: 'error' });
  });

  it('never shows a page outside the payment-page origins, even another local server', async () => {
    let hits = 0;
    const other = http.createServer((_req, res) => {
      hits += 1;
      res.end('<title>Look-alike payment page</title>');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/pay/phish`;
    try {
      const { paymentUrl } = await newPayment();
      let stayed = '';
      const w = opener(async (page) => {
        await page.getByRole('button', { name: 'Cancel payment' }).waitFor();
        const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.url() === otherUrl });
        await page.evaluate((u) => (window.location.href = u), otherUrl);
        await failed;
        stayed = await page.title();
        await page.close();
      });
      expect(await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay' })).toEqual({ kind: 'closed' });
      expect(hits).toBe(0);
      expect(stayed).not.toBe('Look-alike payment page');
    } finally {
      other.close();
    }
  });

  it("answers 'closed' when the caller cancels", async () => {
    const { paymentUrl } = await newPayment();
    const ac = new AbortController();
    const w = opener(async (page) => {
      await page.getByRole('button', { name: 'Cancel payment' }).waitFor();
      ac.abort();
    });
    expect(await w.open({ paymentUrl, redirectUrl: REDIRECT, title: 'Pay', signal: ac.signal })).toEqual({
      kind: 'closed',
    });
  });
});
