import { displayMinor, formatMinor } from '../../../main/money/amount.shared.js';
import { groupDigits } from './format.js';

/**
 * An amount in integer minor units, shown with the currency's decimals (no float maths). `code={false}`
 * leaves out the currency code where a column or heading already says it.
 */
export function Money({
  minor,
  currency,
  className,
  code = true,
}: {
  minor: number | null | undefined;
  currency: string;
  className?: string;
  code?: boolean;
}) {
  if (minor === null || minor === undefined) return <span className={className}>—</span>;
  let text: string;
  try {
    text = code ? displayMinor(minor, currency) : groupDigits(formatMinor(minor, currency));
  } catch {
    text = `${minor} (minor units) ${currency}`;
  }
  return (
    <span className={['money', minor < 0 ? 'negative' : '', className ?? ''].join(' ').trim()}>
      {text}
      {/* A span has no role, so an aria-label would be ignored: the code is read from hidden text instead. */}
      {!code && <span className="sr-only"> {currency}</span>}
    </span>
  );
}
