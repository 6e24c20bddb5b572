export { currencyExponent, isKnownCurrency, MoneyError, CURRENCY_CODE } from './currency.js';
export { toMinor, formatMinor, displayMinor } from './amount.js';
