import { displayMinor } from '../../../main/money/index.js';

/** An amount in integer minor units, shown with the currency's decimals (no float maths). */
export function Money({ minor, currency, className }: { minor: number | null | undefined; currency: string; className?: string }) {
  if (minor === null || minor === undefined) return <span className={className}>—</span>;
  let text: string;
  try {
    text = displayMinor(minor, currency);
  } catch {
    text = `${minor} (minor units) ${currency}`;
  }
  return <span className={['money', minor < 0 ? 'negative' : '', className ?? ''].join(' ').trim()}>{text}</span>;
}
