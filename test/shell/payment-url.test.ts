import { describe, expect, it } from 'vitest';
import { isAllowedPaymentUrl, isLoopbackHostname, isVettedExternalUrl } from '../../main/shell/payment-url.js';

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
    expect(isLoopbackHostname('127.8.9.10')).toBe(true);
    expect(isLoopbackHostname('LOCALHOST')).toBe(true);
    expect(isLoopbackHostname('128.0.0.1')).toBe(false);
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
