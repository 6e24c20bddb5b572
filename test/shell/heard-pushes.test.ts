// Which of the beat's pushes the Chromium shell holds back while its window has no listener for them.
import { describe, expect, it } from 'vitest';
import { heardPushes } from '../../main/shell/heard-pushes.js';

describe('heardPushes', () => {
  it('sends everything until the window says what it listens to', () => {
    const h = heardPushes();
    expect(h.admit('collections.updated')).toBe(true);
    expect(h.admit('app.status')).toBe(true);
  });

  it('holds back collections.updated while nobody listens, and says "many changed" when someone does', () => {
    const h = heardPushes();
    expect(h.heard(JSON.stringify(['app.status']))).toEqual([]);
    expect(h.admit('collections.updated')).toBe(false);
    expect(h.admit('app.status')).toBe(true);
    expect(h.admit('orphans.updated')).toBe(true); // only the beat's own notice is held back
    expect(h.heard(JSON.stringify(['app.status', 'collections.updated']))).toEqual([
      ['collections.updated', { changed: [], many: true }],
    ]);
    expect(h.admit('collections.updated')).toBe(true);
    // Nothing was held back since: a listener that comes again is told nothing.
    expect(h.heard(JSON.stringify(['app.status']))).toEqual([]);
    expect(h.heard(JSON.stringify(['app.status', 'collections.updated']))).toEqual([]);
  });

  it('sends everything again when what the window says is not a list of names', () => {
    const h = heardPushes();
    h.heard('[]');
    expect(h.admit('collections.updated')).toBe(false);
    expect(h.heard('{"not":"a list"}')).toEqual([['collections.updated', { changed: [], many: true }]]);
    expect(h.admit('collections.updated')).toBe(true);
    h.heard('[]');
    expect(h.heard('not json')).toEqual([]);
    expect(h.admit('collections.updated')).toBe(true);
  });
});
