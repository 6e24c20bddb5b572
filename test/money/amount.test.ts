import { describe, expect, it } from 'vitest';
import { displayMinor, formatMinor, toMinor } from '../../main/money/index.js';

describe('money', () => {
  it('parses decimals into minor units by the currency exponent', () => {
    expect(toMinor('1500', 'UGX')).toBe(1500);
    expect(toMinor(1500.5, 'KES')).toBe(150050);
    expect(toMinor('0.10', 'USD')).toBe(10);
    expect(toMinor('1.230', 'BHD')).toBe(1230);
  });
  it('rejects more decimals than the currency allows, naming the field', () => {
    expect(() => toMinor('10.5', 'UGX', 'available_balance')).toThrow(/available_balance.*more decimals than UGX/);
    expect(() => toMinor(0.1 + 0.2, 'USD')).toThrow(/more decimals/);
  });
  it('rejects non-decimals', () => {
    for (const v of ['1e5', '1,000', '', 'NaN', null, {}]) expect(() => toMinor(v, 'USD')).toThrow(/amount/);
    expect(() => toMinor(Infinity, 'USD')).toThrow(/finite/);
    expect(() => toMinor('1', 'XYZ')).toThrow(/unknown currency/);
  });
  it('parses every size exactly up to the largest safe amount, negatives and zero included', () => {
    expect(toMinor('9999999999999.99', 'USD')).toBe(999999999999999); // 15 digits
    expect(toMinor('-9999999999999.99', 'USD')).toBe(-999999999999999);
    expect(toMinor('90071992547409.91', 'USD')).toBe(9007199254740991); // 16 digits: the largest safe integer
    expect(toMinor('-90071992547409.91', 'USD')).toBe(-9007199254740991);
    expect(() => toMinor('90071992547409.92', 'USD')).toThrow(/too large/);
    expect(toMinor('000012.30', 'KES')).toBe(1230);
    expect(Object.is(toMinor('-0.00', 'USD'), 0)).toBe(true);
    expect(Object.is(toMinor(-0, 'USD'), 0)).toBe(true);
    expect(toMinor('-0.01', 'USD')).toBe(-1);
  });
  it('formats minor units back without floats', () => {
    expect(formatMinor(150050, 'KES')).toBe('1500.50');
    expect(formatMinor(5, 'USD')).toBe('0.05');
    expect(formatMinor(-5, 'USD')).toBe('-0.05');
    expect(formatMinor(1500, 'UGX')).toBe('1500');
    expect(displayMinor(123456789, 'KES')).toBe('KES 1,234,567.89');
    expect(toMinor(formatMinor(900719925474099, 'USD'), 'USD')).toBe(900719925474099);
  });
});
