import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { statusLabel } from '../../ui/status.js';

/** Which sources agree: a short word, with what each source said in the accessible name and tooltip. */
export function sourcesText(c: CollectionRow): string {
  const s = c.sources;
  const parts = [
    s.redirect
      ? `redirect ${statusLabel(s.redirect)}${s.redirectSignature && s.redirectSignature !== 'verified' ? ` (signature ${s.redirectSignature})` : ''}`
      : 'no redirect',
    s.callback ? `callback ${statusLabel(s.callback)}` : 'no callback',
  ];
  return parts.join(', ');
}

/**
 * The service changed its own final answer (allowed by allow_final_status_change): the sources differ
 * because the newest answer replaced an older one, not because they contradict each other. It is already
 * flagged for review, so it reads as a warning, not as a disagreement.
 */
function changedAfterFinal(c: Pick<CollectionRow, 'flags'>): boolean {
  return c.flags.includes('final_status_changed') && !c.flags.includes('sources_disagree');
}

export function SourcesAgree({ c }: { c: CollectionRow }) {
  const agree = c.sources.agree;
  const detail = sourcesText(c);
  const changed = agree === false && changedAfterFinal(c);
  const word = agree === null ? 'No reports yet' : agree ? 'Agree' : changed ? 'Changed after final' : 'Disagree';
  const tone = agree === null ? 'off' : agree ? 'ok' : changed ? 'warn' : 'err';
  // The detail is read after the word (a span has no role, so an aria-label on it would be ignored).
  return (
    <span className={`badge ${tone}`} title={detail}>
      {word}
      <span className="sr-only">: {detail}</span>
    </span>
  );
}
