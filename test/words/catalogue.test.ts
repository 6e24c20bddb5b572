// The catalogue itself: every English text has its French, each area's ids start with its name, and
// both languages' texts are ICU messages with the same placeholders (a French text that drops or renames
// one would show the raw {name} or lose a value), plurals included.
import { describe, expect, it } from 'vitest';
import { parse, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { areas, catalogue, type MessageId } from '../../main/words/catalogue.shared.js';
import { collectArguments } from '../../main/words/words.shared.js';

const argumentsOf = (els: MessageFormatElement[]) => collectArguments(els);

const ids = Object.keys(catalogue.en) as MessageId[];

describe('the catalogue', () => {
  it('has a French text, not empty, for every English one, and none more', () => {
    expect(Object.keys(catalogue.fr).sort()).toEqual([...ids].sort());
    const empty = ids.filter((id) => !catalogue.fr[id].trim() || !catalogue.en[id].trim());
    expect(empty).toEqual([]);
  });

  it("keeps each area's ids under its name, so no two areas share an id", () => {
    const strays: string[] = [];
    let total = 0;
    for (const [name, area] of Object.entries(areas)) {
      total += Object.keys(area.en).length;
      for (const id of Object.keys(area.en)) if (!id.startsWith(`${name}.`)) strays.push(id);
      expect(Object.keys(area.fr).sort()).toEqual(Object.keys(area.en).sort());
    }
    expect(strays).toEqual([]);
    expect(total).toBe(ids.length);
  });

  it('has the same placeholders and tags in English and French, and both parse as ICU messages', () => {
    const mismatched: string[] = [];
    for (const id of ids) {
      const en = [...argumentsOf(parse(catalogue.en[id]))].sort();
      const fr = [...argumentsOf(parse(catalogue.fr[id]))].sort();
      if (en.join() !== fr.join()) mismatched.push(`${id}: en {${en}} fr {${fr}}`);
    }
    expect(mismatched).toEqual([]);
  });

  it('formats every message in both languages with a value for each placeholder', () => {
    const failed: string[] = [];
    for (const id of ids) {
      const values = Object.fromEntries(
        [...argumentsOf(parse(catalogue.en[id]))].map((a) =>
          a.startsWith('<') ? [a.slice(1, -1), (chunks: string[]) => chunks.join('')] : [a, 2],
        ),
      );
      for (const lang of ['en', 'fr'] as const) {
        try {
          const out = String(new IntlMessageFormat(catalogue[lang][id], lang).format(values));
          if (/[{}]/.test(out)) failed.push(`${lang} ${id}: ${out}`);
        } catch (e) {
          failed.push(`${lang} ${id}: ${(e as Error).message}`);
        }
      }
    }
    expect(failed).toEqual([]);
  });

  it('counts by ICU plurals: French says "1 événement" and "0 événement", English "0 events"', () => {
    const en = new IntlMessageFormat(catalogue.en['status.catchingUp'], 'en');
    const fr = new IntlMessageFormat(catalogue.fr['status.catchingUp'], 'fr');
    expect(en.format({ behind: 0 })).toBe('Catching up with the team: 0 events behind');
    expect(en.format({ behind: 1 })).toBe('Catching up with the team: 1 event behind');
    expect(fr.format({ behind: 0 })).toBe('Rattrapage de l’équipe : 0 événement de retard');
    expect(fr.format({ behind: 1500 })).toBe('Rattrapage de l’équipe : 1\u202f500 événements de retard');
  });
});
