import { useWords } from '../words/index.js';

/**
 * An amount in integer minor units, shown with the currency's decimals in the person's format (no float
 * maths). `code={false}` leaves out the currency code where a column or heading already says it.
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
  const { f } = useWords();
  if (minor === null || minor === undefined) return <span className={className}>—</span>;
  return (
    <span className={['money', minor < 0 ? 'negative' : '', className ?? ''].join(' ').trim()}>
      {f.amount(minor, currency, { code })}
      {/* A span has no role, so an aria-label would be ignored: the code is read from hidden text instead. */}
      {!code && (
        <span className="sr-only" translate="no">
          {' '}
          {currency}
        </span>
      )}
    </span>
  );
}
