// The one check of a URL the service gives (issue 39), with hostile URLs.
import { describe, expect, it } from 'vitest';
import { serviceUrlProblem } from '../../main/service/service-url.js';

const REMOTE = 'https://api.pay.example';
const SANDBOX = 'http://127.0.0.1:4010';

describe('serviceUrlProblem', () => {
  it('takes https pages, and plain http on loopback only from a loopback sandbox', () => {
    expect(serviceUrlProblem('https://pay.example/pay/tok1?x=1', REMOTE)).toBeNull();
    expect(serviceUrlProblem('http://127.0.0.1:4010/pay/tok1', SANDBOX)).toBeNull();
    expect(serviceUrlProblem('http://localhost:4010/pay/tok1', 'http://localhost:4010')).toBeNull();
    expect(serviceUrlProblem('http://127.0.0.1:4010/pay/tok1', REMOTE)).toBe('is not an https address');
    expect(serviceUrlProblem('http://pay.example/pay/tok1', SANDBOX)).toBe('is not an https address');
  });

  it.each([
    ['javascript:alert(1)', 'is not an https address'],
    ['JAVASCRIPT:alert(1)', 'is not an https address'],
    ['data:text/html,<script>alert(1)</script>', 'is not an https address'],
    ['file:///etc/passwd', 'is not an https address'],
    ['ftp://pay.example/x', 'is not an https address'],
    ['//pay.example/x', 'is not a URL'],
    ['/pay/tok1', 'is not a URL'],
    ['', 'is not a URL'],
    ['https://user:pw@pay.example/x', 'carries a user name or password'],
    ['https://@pay.example/x', 'carries a user name or password'],
    ['https://pay.example/x?to=a@b.example', null],
    ['https://pay.example/x y', 'has spaces or control characters'],
    ['https://pay.example/x\n', 'has spaces or control characters'],
    ['java\tscript:alert(1)', 'has spaces or control characters'],
    [' https://pay.example/x', 'has spaces or control characters'],
    ['https://pay.example/' + 'a'.repeat(2100), 'is longer than 2,048 characters'],
  ])('%s: %s', (url, problem) => {
    expect(serviceUrlProblem(url, SANDBOX)).toBe(problem);
  });
});
