// The catalogue's end-to-end checks (issue 42): every word on screen came through the catalogue or the
// formatting module. In the pseudo-locale (renderer/src/words/pseudo.ts) each catalogue text is marked
// ⟦…⟧ and each value or formatted date, number and amount ⟨…⟩; data shown as it came (references, names,
// payloads, stored notes) sits in elements marked translate="no". Whatever letter is left outside those
// is a word that went through nothing.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';
import type { Page } from 'playwright-core';
import { accent } from '../../../renderer/src/words/pseudo.js';

/** The pseudo-locale's text of an English catalogue text without placeholders: "⟦Bálánçés⟧". */
export const pseudo = (english: string): string => `⟦${accent(english)}⟧`;

/** Starts the next app of `dataDir` in `language` (the desk's language.json, as Settings writes it). */
export function chooseLanguage(dataDir: string, language: 'pseudo' | 'fr' | 'en' | 'system'): void {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'language.json'), JSON.stringify({ language }) + '\n');
}

/** Every text node, window title and accessible-name attribute of the page that holds a letter outside the marks. */
export async function unmarkedWords(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const MARKED = /⟦[^⟧]*⟧|⟨[^⟩]*⟩/g;
    const left = (s: string) => s.replace(MARKED, '');
    const bad: string[] = [];
    const where = (el: Element) => {
      const parts: string[] = [];
      for (let e: Element | null = el; e && parts.length < 4; e = e.parentElement) {
        const id = e.id ? `#${e.id}` : '';
        const cls = typeof e.className === 'string' && e.className ? `.${e.className.split(' ')[0]}` : '';
        parts.unshift(`${e.tagName.toLowerCase()}${id}${cls}`);
      }
      return parts.join(' > ');
    };
    const isData = (el: Element) => el.closest('[translate="no"], script, style, noscript') !== null;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || isData(el)) continue;
      const text = (n as Text).data;
      if (/\p{L}/u.test(left(text))) bad.push(`${where(el)}: "${text.trim().slice(0, 120)}"`);
    }
    const ATTRS = ['aria-label', 'title', 'placeholder', 'alt', 'aria-valuetext', 'aria-roledescription'];
    for (const el of document.body.querySelectorAll('*')) {
      for (const a of ATTRS) {
        // A tooltip or an example on data (a provider's code over its name, a masked key in a key's field)
        // is data too; names and labels never are.
        if ((a === 'title' || a === 'placeholder') && isData(el)) continue;
        const v = el.getAttribute(a);
        if (v && /\p{L}/u.test(left(v))) bad.push(`${where(el)} [${a}]: "${v.slice(0, 120)}"`);
      }
    }
    if (/\p{L}/u.test(left(document.title))) bad.push(`title: "${document.title}"`);
    return bad;
  });
}

/** Fails naming every word on the page that did not go through the catalogue (`what`: the screen and state). */
export async function expectAllWordsMarked(page: Page, what: string): Promise<void> {
  expect(await unmarkedWords(page), `words outside the catalogue on "${what}"`).toEqual([]);
}
