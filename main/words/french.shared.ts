// The type every area's French texts have: one for each English id, none more (a missing or unknown
// id fails type checking; test/words/catalogue.test.ts checks the texts themselves).
export type FrenchOf<T extends Record<string, string>> = { readonly [K in keyof T]: string };
