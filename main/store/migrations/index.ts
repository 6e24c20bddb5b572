// Numbered migrations, applied in order, each in its own transaction. Append new ones; never edit
// one that has shipped.
import { sql as m001 } from './001-initial.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [{ version: 1, name: 'initial', sql: m001 }];
