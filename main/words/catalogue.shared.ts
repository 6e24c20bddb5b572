// The one catalogue of what a person reads, for main and the window alike: one module per area
// (./<area>.shared.ts), each with its English texts (the source of the ids) and their French. Texts are
// ICU messages (placeholders, plurals and selects by ICU's rules, formatted by FormatJS). An area's ids
// start with its name, so two areas never share an id (test/words/catalogue.test.ts).
import * as app from './app.shared.js';
import * as ui from './ui.shared.js';
import * as errors from './errors.shared.js';
import * as lock from './lock.shared.js';
import * as team from './team.shared.js';
import * as status from './status.shared.js';
import * as balances from './balances.shared.js';
import * as options from './options.shared.js';
import * as payment from './payment.shared.js';
import * as collections from './collections.shared.js';
import * as recon from './recon.shared.js';
import * as reports from './reports.shared.js';
import * as settings from './settings.shared.js';
import * as service from './service.shared.js';
import * as failure from './failure.shared.js';

export const en = {
  ...app.en,
  ...ui.en,
  ...errors.en,
  ...lock.en,
  ...team.en,
  ...status.en,
  ...balances.en,
  ...options.en,
  ...payment.en,
  ...collections.en,
  ...recon.en,
  ...reports.en,
  ...settings.en,
  ...service.en,
  ...failure.en,
};

export type MessageId = keyof typeof en;

export const fr: { readonly [K in MessageId]: string } = {
  ...app.fr,
  ...ui.fr,
  ...errors.fr,
  ...lock.fr,
  ...team.fr,
  ...status.fr,
  ...balances.fr,
  ...options.fr,
  ...payment.fr,
  ...collections.fr,
  ...recon.fr,
  ...reports.fr,
  ...settings.fr,
  ...service.fr,
  ...failure.fr,
};

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

export const catalogue: { readonly [L in Language]: { readonly [K in MessageId]: string } } = { en, fr };

/** Each area's texts, by the prefix its ids start with (the catalogue's test checks them). */
export const areas: Record<string, { en: Record<string, string>; fr: Record<string, string> }> = {
  app,
  ui,
  errors,
  lock,
  team,
  status,
  balances,
  options,
  payment,
  collections,
  recon,
  reports,
  settings,
  service,
  failure,
};
