// The hosted payment page: plain server-rendered HTML, no scripts, no external assets.
import { displayMinor } from '../main/money/index.js';
import type { Collection } from './collections.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}
main{max-width:26rem;margin:3rem auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.2rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.2rem}
dt{color:#5a6275}dd{margin:0;font-weight:600}
button{font:inherit;padding:.6rem 1rem;border-radius:6px;border:1px solid #2a4bd7;cursor:pointer;margin:.3rem .3rem 0 0}
.pay{background:#2a4bd7;color:#fff}.cancel{background:#fff;color:#2a4bd7}
label{display:block;margin:.8rem 0 .3rem}input{font:inherit;padding:.4rem;width:10rem}
.note{background:#fff7d6;padding:.6rem;border-radius:6px}.final{font-size:1.1rem}
.sandbox{color:#8a6d00;font-size:.8rem;margin-top:1.5rem}`;

function shell(title: string, inner: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>${inner}<p class="sandbox">Sandbox payment page: no real money moves.</p></main></body></html>`;
}

function summary(c: Collection, merchantName: string): string {
  const amount = displayMinor(c.transaction_amount, c.currency);
  return `<dl>
<dt>Merchant</dt><dd>${esc(merchantName)}</dd>
<dt>Amount</dt><dd>${esc(amount)}</dd>
<dt>Description</dt><dd>${esc(c.description)}</dd>
<dt>Card</dt><dd>${esc(c.card.brand)} <span aria-label="card ending in ${esc(c.card.last4)}">•••• ${esc(c.card.last4)}</span></dd>
</dl>`;
}

export function renderPaymentPage(c: Collection, merchantName: string, action: string, note?: string): string {
  const amount = displayMinor(c.transaction_amount, c.currency);
  if (c.status !== 'PENDING') return renderFinalPage(c, merchantName);
  const challenge =
    c.card.scenario === 'challenge'
      ? `<form method="post" action="${esc(action)}">
<input type="hidden" name="action" value="verify">
<p>Your bank asks for a one-time code to confirm this payment.</p>
<label for="otp">One-time code</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
<button type="submit" class="pay">Verify</button>
</form>`
      : '';
  return shell(
    `Pay ${amount} - ${merchantName}`,
    `<h1>Pay ${esc(merchantName)}</h1>
${summary(c, merchantName)}
${note ? `<p class="note" role="alert">${esc(note)}</p>` : ''}
${challenge}
<form method="post" action="${esc(action)}">
${c.card.scenario === 'challenge' && c.challenge ? '' : `<button type="submit" name="action" value="pay" class="pay">Pay ${esc(amount)}</button>`}
<button type="submit" name="action" value="cancel" class="cancel">Cancel payment</button>
</form>`,
  );
}

export function renderFinalPage(c: Collection, merchantName: string): string {
  const word =
    c.status === 'COMPLETED' ? 'Payment completed' : c.status === 'FAILED' ? 'Payment failed' : 'Payment cancelled';
  return shell(
    `${word} - ${merchantName}`,
    `<h1>${esc(word)}</h1>
${summary(c, merchantName)}
<p class="final" role="status">Status: <strong>${esc(c.status)}</strong> — ${esc(c.status_message)}</p>
<p>This payment is finished; it cannot be paid again.</p>`,
  );
}

export function renderNotFound(): string {
  return shell('Payment not found', '<h1>Payment not found</h1><p>This payment link is not valid.</p>');
}
