export { WordsProvider, storedLanguage } from './WordsProvider.js';
export { useWords, type Say } from './useWords.js';
export { resolveLanguage, type ResolvedLanguage } from './language.js';
