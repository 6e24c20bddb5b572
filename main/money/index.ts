export { currencyExponent, isKnownCurrency, MoneyError, CURRENCY_CODE } from './currency.shared.js';
export { toMinor, formatMinor, displayMinor } from './amount.shared.js';
