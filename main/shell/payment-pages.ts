// The active profile's payment-page scope, for both shells: the base URL in use (the embedded profile's
// is its sandbox's) and the payment URLs initialize returned while this profile was open. openExternal
// and the payment window ask it before opening anything.
import type { Queries } from '../app/desk-queries.js';
import { isPaymentPageUrl, type PaymentPageScope } from './payment-url.js';

/** How many payment-URL origins are remembered per profile (oldest forgotten first). */
const MAX_REMEMBERED = 20;

export class PaymentPages {
  readonly #seen = new Map<string, string[]>();

  constructor(private readonly desk: Pick<Queries, 'settings' | 'embedded'>) {}

  #profile(): string {
    return this.desk.settings().profile;
  }

  /** The base URL the service client of the active profile talks to. */
  baseUrl(): string | null {
    const s = this.desk.settings();
    return s.profile === 'embedded' ? (this.desk.embedded()?.baseUrl ?? null) : s.baseUrl;
  }

  /** A payment URL initialize returned (the charge flow hands it to the payment window). */
  remember(paymentUrl: string): void {
    const list = this.#seen.get(this.#profile()) ?? [];
    if (!list.includes(paymentUrl)) list.push(paymentUrl);
    if (list.length > MAX_REMEMBERED) list.shift();
    this.#seen.set(this.#profile(), list);
  }

  scope(): PaymentPageScope {
    return {
      baseUrl: this.baseUrl(),
      paymentUrls: [...(this.#seen.get(this.#profile()) ?? [])],
      // Plain http only for a sandbox on this machine, never in the live profile.
      allowLoopbackHttp: this.#profile() !== 'live',
    };
  }

  allows(url: string): boolean {
    return isPaymentPageUrl(url, this.scope());
  }
}
