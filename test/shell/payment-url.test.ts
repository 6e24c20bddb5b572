import { describe, expect, it } from 'vitest';
import {
  isAllowedPaymentUrl,
  isPaymentPageUrl,
  isVettedExternalUrl,
  registrableDomain,
} from '../../main/shell/payment-url.js';
import { isLoopbackHost } from '../../main/service/loopback.js';

describe('isAllowedPaymentUrl', () => {
  const strict = { allowLoopbackHttp: false };
  const local = { allowLoopbackHttp: true };
  it('allows https', () => {
    expect(isAllowedPaymentUrl('https://pay.example.com/pay/abc', strict)).toBe(true);
  });
  it('allows http only on loopback, and only when asked', () => {
    expect(isAllowedPaymentUrl('http://127.0.0.1:4010/pay/abc', local)).toBe(true);
    expect(isAllowedPaymentUrl('http://localhost:4010/pay/abc', local)).toBe(true);
    expect(isAllowedPaymentUrl('http://[::1]:4010/pay/abc', local)).toBe(true);
    expect(isAllowedPaymentUrl('http://127.0.0.1:4010/pay/abc', strict)).toBe(false);
    expect(isAllowedPaymentUrl('http://pay.example.com/pay/abc', local)).toBe(false);
    expect(isAllowedPaymentUrl('http://127.0.0.1.evil.com/pay', local)).toBe(false);
    expect(isAllowedPaymentUrl('http://localhost.evil.com/pay', local)).toBe(false);
  });
  it('refuses credentials, other schemes and garbage', () => {
    for (const u of [
      'https://user:pw@pay.example.com/',
      'https://@pay.example.com/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<h1>x</h1>',
      'ftp://pay.example.com/',
      'not a url',
      '',
    ]) {
      expect(isAllowedPaymentUrl(u, local), u).toBe(u === 'https://@pay.example.com/');
    }
  });
  it('recognises loopback host names', () => {
    expect(isLoopbackHost('127.8.9.10')).toBe(true);
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});

describe('isVettedExternalUrl (shell.openExternal)', () => {
  it('passes https only, without credentials or control characters', () => {
    expect(isVettedExternalUrl('https://docs.example.com/help')).toBe(true);
    for (const u of [
      'http://docs.example.com/',
      'file:///etc/passwd',
      'smb://share/x',
      'javascript:alert(1)',
      'https://user:pw@docs.example.com/',
      'https://docs.example.com/\u0000x',
      'ms-msdt:/id',
      'x',
    ]) {
      expect(isVettedExternalUrl(u), u).toBe(false);
    }
  });
});

describe('registrableDomain', () => {
  it('is the last two labels, or three under a country-code second level', () => {
    expect(registrableDomain('api.pay.example.com')).toBe('example.com');
    expect(registrableDomain('example.com')).toBe('example.com');
    expect(registrableDomain('api.example.co.ke')).toBe('example.co.ke');
    expect(registrableDomain('checkout.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('co.uk')).toBeNull();
    expect(registrableDomain('localhost')).toBeNull();
    expect(registrableDomain('127.0.0.1')).toBeNull();
    expect(registrableDomain('[::1]')).toBeNull();
    expect(registrableDomain('example.com.')).toBeNull();
  });
  it('follows the Public Suffix List: suffixes a hand-kept list missed, wildcard rules, shared hosts', () => {
    // Country-code second levels beyond the usual co/com/org, and generic ones under a gTLD.
    expect(registrableDomain('api.shop.nom.za')).toBe('shop.nom.za');
    expect(registrableDomain('pay.merchant.web.za')).toBe('merchant.web.za');
    expect(registrableDomain('pay.merchant.us.com')).toBe('merchant.us.com');
    expect(registrableDomain('api.example.com.ng')).toBe('example.com.ng');
    expect(registrableDomain('api.merchant.gov.rw')).toBe('merchant.gov.rw');
    // A wildcard rule (*.ck): every second level is a public suffix.
    expect(registrableDomain('pay.example.co.ck')).toBe('example.co.ck');
    // Shared hosts from the list's private section: each customer's subdomain is its own site.
    expect(registrableDomain('merchant.github.io')).toBe('merchant.github.io');
    expect(registrableDomain('pay.merchant.herokuapp.com')).toBe('merchant.herokuapp.com');
    // A public suffix alone is no one's domain.
    for (const suffix of ['co.ke', 'nom.za', 'us.com', 'github.io', 'herokuapp.com', 'com', 'example.ck']) {
      expect(registrableDomain(suffix), suffix).toBeNull();
    }
    // Empty labels, IPs and bracketed hosts are never a domain.
    expect(registrableDomain('a..example.com')).toBeNull();
    expect(registrableDomain('.example.com')).toBeNull();
    expect(registrableDomain('10.0.0.1')).toBeNull();
  });
});

describe('isPaymentPageUrl (openExternal and the payment window)', () => {
  const live = { baseUrl: 'https://api.payments.example.com/v1', allowLoopbackHttp: false };
  it('allows the base URL origin and hosts on its registrable domain, https on the default port', () => {
    for (const u of [
      'https://api.payments.example.com/pay/abc',
      'https://checkout.example.com/pay/abc?x=1',
      'https://example.com/pay',
      'https://a.b.example.com/',
      'https://CHECKOUT.EXAMPLE.COM/pay',
    ]) {
      expect(isPaymentPageUrl(u, live), u).toBe(true);
    }
  });
  it('refuses other hosts, lookalikes, userinfo, http, other ports and IDN tricks', () => {
    for (const u of [
      'https://evil.com/pay',
      'https://example.com.evil.com/pay', // suffix of the wrong side
      'https://evilexample.com/pay', // no label boundary
      'https://example.co/pay',
      'https://examp1e.com/pay',
      'https://exаmple.com/pay', // Cyrillic а: a different (punycode) host
      'https://xn--exmple-4nf.com/pay',
      'https://example.com%2eevil.com/pay', // decodes to example.com.evil.com
      'https://example.com@evil.com/pay',
      'https://user:pw@checkout.example.com/pay',
      'https://@checkout.example.com/pay',
      'https://evil.com#@checkout.example.com',
      'https://evil.com\\@checkout.example.com',
      'https://evil.com/?https://checkout.example.com',
      'http://checkout.example.com/pay',
      'https://checkout.example.com:8443/pay',
      'https://checkout.example.com./pay',
      'javascript:alert(1)//checkout.example.com',
      'data:text/html,checkout.example.com',
      'file:///etc/passwd',
      ' https://checkout.example.com/pay',
      '',
    ]) {
      expect(isPaymentPageUrl(u, live), u).toBe(false);
    }
  });
  it("refuses another customer's host under a public suffix the base URL shares", () => {
    const cases: [string, string[], string[]][] = [
      [
        'https://api.shop.nom.za/v1',
        ['https://checkout.shop.nom.za/pay', 'https://shop.nom.za/pay'],
        ['https://evil.nom.za/pay', 'https://nom.za/pay'],
      ],
      ['https://pay.merchant.us.com/v1', ['https://checkout.merchant.us.com/pay'], ['https://evil.us.com/pay']],
      [
        'https://merchant.github.io/pay',
        ['https://merchant.github.io/other'],
        ['https://evil.github.io/pay', 'https://github.io/pay'],
      ],
      [
        'https://api.merchant.herokuapp.com',
        ['https://pay.merchant.herokuapp.com/p'],
        ['https://evil.herokuapp.com/p', 'https://herokuapp.com/p'],
      ],
      ['https://api.example.co.ck', ['https://pay.example.co.ck/p'], ['https://evil.co.ck/p', 'https://co.ck/p']],
      ['https://api.example.com.ng', ['https://pay.example.com.ng/p'], ['https://evil.com.ng/p']],
    ];
    for (const [baseUrl, allowed, refused] of cases) {
      const scope = { baseUrl, allowLoopbackHttp: false };
      for (const u of allowed) expect(isPaymentPageUrl(u, scope), `${u} under ${baseUrl}`).toBe(true);
      for (const u of refused) expect(isPaymentPageUrl(u, scope), `${u} under ${baseUrl}`).toBe(false);
    }
  });
  it('a base URL that is a public suffix or an IP address allows its own origin only', () => {
    for (const baseUrl of ['https://github.io', 'https://co.ke', 'https://10.1.2.3']) {
      const scope = { baseUrl, allowLoopbackHttp: false };
      expect(isPaymentPageUrl(`${baseUrl}/pay`, scope), baseUrl).toBe(true);
      expect(isPaymentPageUrl(`https://evil.${new URL(baseUrl).hostname}/pay`, scope), baseUrl).toBe(false);
    }
  });
  it('allows the exact origin of a payment URL initialize returned, and nothing else on that host', () => {
    const scope = { ...live, paymentUrls: ['https://pay.psp-hosted.net/p/123'] };
    expect(isPaymentPageUrl('https://pay.psp-hosted.net/p/123/3ds', scope)).toBe(true);
    expect(isPaymentPageUrl('https://other.psp-hosted.net/p/123', scope)).toBe(false);
    expect(isPaymentPageUrl('https://pay.psp-hosted.net:444/p/123', scope)).toBe(false);
    expect(isPaymentPageUrl('https://pay.psp-hosted.net/p/123', live)).toBe(false);
  });
  it('a local sandbox: only the exact origin of its base URL, and only when loopback http is allowed', () => {
    const local = { baseUrl: 'http://127.0.0.1:4010', allowLoopbackHttp: true };
    expect(isPaymentPageUrl('http://127.0.0.1:4010/pay/abc', local)).toBe(true);
    expect(isPaymentPageUrl('http://127.0.0.1:4011/pay/abc', local)).toBe(false);
    expect(isPaymentPageUrl('http://localhost:4010/pay/abc', local)).toBe(false);
    expect(isPaymentPageUrl('https://127.0.0.1:4010/pay/abc', local)).toBe(false);
    expect(isPaymentPageUrl('https://example.com/pay', local)).toBe(false);
    expect(isPaymentPageUrl('http://127.0.0.1:4010/pay/abc', { ...local, allowLoopbackHttp: false })).toBe(false);
  });
  it('refuses everything when no base URL is set', () => {
    expect(isPaymentPageUrl('https://checkout.example.com/pay', { baseUrl: null, allowLoopbackHttp: false })).toBe(
      false,
    );
  });
});
