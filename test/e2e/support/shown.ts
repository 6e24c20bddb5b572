// What a desk's person was shown, all of it, as it was shown: a recorder in the app's window (every
// change of the whole document, caught by a MutationObserver before it is painted, and every note typed)
// and in each payment window the desk opens (every page it loads). A test then says what a person could
// NEVER have seen, instead of reading one element after a pause. Each sample keeps the whole window's
// visible text (status bar, notices, dialogs and the screen) and the parts a rule needs to say whose work
// a piece is: the screen's title, the status bar, open dialogs, alerts, the Take payment outcome and its
// receipt, an open detail view, and the visible rows of every table.
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface ShownTable {
  /** The table's accessible name (aria-label). */
  label: string;
  headers: string[];
  /** The rows on screen (a virtualised table draws only those), each cell's text. */
  rows: string[][];
}

/** One state of the app's window, as a person could see it, from `t` until the next sample. */
export interface Shown {
  /** Date.now() in the window (the same clock as the test's). */
  t: number;
  /** The visible level-1 heading: the screen's title, or the lock screen's. */
  screen: string;
  /** Everything the window shows, as text (display:none parts, like the app behind the lock, are not in it). */
  text: string;
  status: string;
  dialogs: string[];
  alerts: string[];
  /** Take payment's outcome panel (data-testid payment-outcome). */
  outcome: string | null;
  /** Take payment's receipt (region "Receipt"). */
  receipt: string | null;
  /** The open detail of Collections or Reconciliation (what is labelled by #detail-title). */
  detail: string | null;
  tables: ShownTable[];
  /** The values of the visible text areas (notes being typed; no card field is a text area). */
  notes: string[];
}

/** A payment window's page as it loaded (or navigated: then `text` is null until it loads). */
export interface PaymentShown {
  t: number;
  url: string;
  text: string | null;
}

/** Installed in the app's window; kept as a function Playwright sends as source. */
function installRecorder(): void {
  const w = window as unknown as { __shown?: unknown[] };
  if (w.__shown) return;
  const log: unknown[] = [];
  w.__shown = log;
  const seen = (el: Element): el is HTMLElement => el instanceof HTMLElement && el.checkVisibility();
  const texts = (selector: string): string[] =>
    [...document.querySelectorAll(selector)]
      .filter(seen)
      .map((el) => el.innerText.trim())
      .filter((s) => s !== '');
  const one = (selector: string): string | null => texts(selector)[0] ?? null;
  const labelOf = (el: Element): string => {
    const by = el.getAttribute('aria-labelledby');
    const named = by ? document.getElementById(by) : null;
    return el.getAttribute('aria-label') ?? (named instanceof HTMLElement ? named.innerText.trim() : '');
  };
  let last = '';
  const take = () => {
    const body = document.body;
    if (!body) return;
    const sample = {
      screen: [...document.querySelectorAll('h1')].filter(seen).map((h) => h.innerText.trim())[0] ?? '',
      text: body.innerText,
      status: one('footer[aria-label="Status"]') ?? '',
      dialogs: texts('dialog[open]'),
      alerts: texts('[role="alert"]'),
      outcome: one('[data-testid="payment-outcome"]'),
      receipt: one('section[aria-label="Receipt"]'),
      detail: one('[aria-labelledby="detail-title"]'),
      tables: [...document.querySelectorAll('table')].filter(seen).map((t) => ({
        label: labelOf(t),
        headers: [...t.querySelectorAll('thead th')].map((th) => (th as HTMLElement).innerText.trim()),
        rows: [...t.querySelectorAll('tbody tr')]
          .filter((tr) => tr.getAttribute('aria-hidden') !== 'true' && seen(tr))
          .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
      })),
      notes: [...document.querySelectorAll('textarea')].filter(seen).map((a) => a.value),
    };
    const key = JSON.stringify(sample);
    if (key === last) return;
    last = key;
    log.push({ t: Date.now(), ...sample });
  };
  take();
  new MutationObserver(take).observe(document.documentElement, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
  });
  // Typing in a text area changes its value, not the document.
  document.addEventListener('input', take, true);
}

export interface DeskWatch {
  /** Every state the app's window showed since the watch began, oldest first. */
  shown(): Promise<Shown[]>;
  /** Every page the desk's payment windows loaded, oldest first. */
  paymentPages: PaymentShown[];
  /** Stops looking for new payment windows. */
  stop(): void;
}

/** How often the browser is asked for payment windows it opened since (Playwright says nothing of them). */
const LOOK_FOR_WINDOWS_MS = 50;

/**
 * Watches a desk: its app window (`page`) and every payment window its browser opens. Each payment window
 * is a browser context of its own, opened by the app's own Playwright client; this test's CDP client
 * emits no 'context' event for it (and may file its page under a context it already knew), so every
 * context's pages are followed and the list of contexts is read every 50 ms. A page found after it
 * loaded is read at once: the hosted page has no scripts, so what it shows changes only when it loads.
 */
export async function watchDesk(browser: Browser, page: Page): Promise<DeskWatch> {
  await page.evaluate(installRecorder);
  const paymentPages: PaymentShown[] = [];
  const track = (p: Page) => {
    if (p === page) return;
    const loaded = async () => {
      const url = p.url();
      const text = await p.evaluate(() => document.body?.innerText ?? '').catch(() => null);
      if (text !== null) paymentPages.push({ t: Date.now(), url, text });
    };
    p.on('framenavigated', (f) => {
      if (f === p.mainFrame() && f.url() !== 'about:blank')
        paymentPages.push({ t: Date.now(), url: f.url(), text: null });
    });
    p.on('domcontentloaded', () => void loaded());
    if (p.url() !== 'about:blank') void loaded();
  };
  const known = new Set<BrowserContext>();
  const look = () => {
    for (const c of browser.contexts()) {
      if (known.has(c)) continue;
      known.add(c);
      c.on('page', track);
      for (const p of c.pages()) track(p);
    }
  };
  look();
  const timer = setInterval(look, LOOK_FOR_WINDOWS_MS);
  return {
    shown: () => page.evaluate(() => (window as unknown as { __shown: Shown[] }).__shown),
    paymentPages,
    stop: () => clearInterval(timer),
  };
}

/** The merchant references (MD-YYYYMMDD-XXXX) in a text. */
export function referencesIn(text: string): string[] {
  return [...new Set(text.match(/MD-\d{8}-[A-Z0-9]+/g) ?? [])];
}
