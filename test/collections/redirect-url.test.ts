import { describe, expect, it } from 'vitest';
import { isRedirectUrl, redirectParams } from '../../main/collections/redirect-url.js';

const CONF = 'https://merchant-desk.invalid/return';
const Q = '?event=transaction.completed&merchant_reference=MD-1&transaction_status=COMPLETED';

describe('isRedirectUrl', () => {
  it('accepts the configured URL with any query', () => {
    expect(isRedirectUrl(CONF + Q, CONF)).toBe(true);
    expect(isRedirectUrl(CONF, CONF)).toBe(true);
    expect(isRedirectUrl('HTTPS://MERCHANT-DESK.invalid/return' + Q, CONF)).toBe(true);
    expect(isRedirectUrl('https://merchant-desk.invalid:443/return' + Q, CONF)).toBe(true); // default port is the same origin
    expect(isRedirectUrl('http://127.0.0.1:5173/cb?x=1', 'http://127.0.0.1:5173/cb')).toBe(true);
  });

  const hostile: [string, string][] = [
    ['userinfo with the real host as user', 'https://merchant-desk.invalid@evil.example/return' + Q],
    ['userinfo with user:password', 'https://merchant-desk.invalid:x@evil.example/return'],
    ['userinfo on the right host', 'https://user:pass@merchant-desk.invalid/return'],
    ['empty userinfo', 'https://@merchant-desk.invalid/return'],
    ['host as a subdomain prefix', 'https://merchant-desk.invalid.evil.example/return'],
    ['host with a trailing dot', 'https://merchant-desk.invalid./return'],
    ['path prefix', 'https://merchant-desk.invalid/return-evil'],
    ['path extension', 'https://merchant-desk.invalid/return/more'],
    ['trailing slash', 'https://merchant-desk.invalid/return/'],
    ['different case in the path', 'https://merchant-desk.invalid/Return'],
    ['path only as query', 'https://evil.example/?next=https://merchant-desk.invalid/return'],
    ['path in the fragment', 'https://evil.example/#https://merchant-desk.invalid/return'],
    ['encoded slash', 'https://merchant-desk.invalid/return%2F..%2Fevil'],
    ['encoded path', 'https://merchant-desk.invalid/%72eturn'],
    ['encoded dot segments', 'https://merchant-desk.invalid/x/%2e%2e/return'],
    ['dot segments', 'https://merchant-desk.invalid/x/../return'],
    ['different port', 'https://merchant-desk.invalid:8443/return'],
    ['http instead of https', 'http://merchant-desk.invalid/return'],
    ['backslash as a separator', 'https://evil.example\\@merchant-desk.invalid/return'],
    ['backslash in the path', 'https://merchant-desk.invalid\\return'],
    ['javascript scheme', 'javascript:alert(1)//merchant-desk.invalid/return'],
    ['data URL', 'data:text/html,https://merchant-desk.invalid/return'],
    ['tab inside the host', 'https://merchant-desk.inva\tlid/return'],
    ['newline inside the scheme', 'ht\ntps://merchant-desk.invalid/return'],
    ['leading space', ' https://merchant-desk.invalid/return'],
    ['unicode look-alike host', 'https://merchant-desk.invalіd/return'],
    ['not a URL', 'merchant-desk.invalid/return'],
    ['empty', ''],
  ];
  for (const [name, url] of hostile) {
    it(`refuses ${name}`, () => expect(isRedirectUrl(url, CONF)).toBe(false));
  }

  it('refuses when the configured value is not a URL', () => {
    expect(isRedirectUrl(CONF, 'not a url')).toBe(false);
  });

  it('reads the query parameters, percent-decoded', () => {
    expect(redirectParams(CONF + '?a=1&rsa_signature=ab%2Bcd%3D&hmac_signature=t%3D1%2Cs%3Dff')).toEqual({
      a: '1',
      rsa_signature: 'ab+cd=',
      hmac_signature: 't=1,s=ff',
    });
  });
});
