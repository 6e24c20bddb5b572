import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { statusLabel } from '../../ui/StatusBadge.js';

/** Which sources agree: a short word, with what each source said in the accessible name and tooltip. */
export function sourcesText(c: CollectionRow): string {
  const s = c.sources;
  const parts = [
    s.redirect ? `redirect ${statusLabel(s.redirect)}${s.redirectSignature && s.redirectSignature !== 'verified' ? ` (signature ${s.redirectSignature})` : ''}` : 'no redirect',
    s.callback ? `callback ${statusLabel(s.callback)}` : 'no callback',
  ];
  return parts.join(', ');
}

export function SourcesAgree({ c }: { c: CollectionRow }) {
  const agree = c.sources.agree;
  const detail = sourcesText(c);
  const word = agree === null ? 'No reports yet' : agree ? 'Agree' : 'Disagree';
  return (
    <span className={`badge ${agree === null ? 'off' : agree ? 'ok' : 'err'}`} title={detail} aria-label={`${word}: ${detail}`}>
      {word}
    </span>
  );
}
