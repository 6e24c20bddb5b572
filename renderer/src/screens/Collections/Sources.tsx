import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { statusLabel } from '../../ui/status.js';
import { useWords, type Say } from '../../words/index.js';

/** Which sources agree: a short word, with what each source said in the accessible name and tooltip. */
export function sourcesText(t: Say['t'], c: CollectionRow): string {
  const s = c.sources;
  const redirect = s.redirect
    ? s.redirectSignature && s.redirectSignature !== 'verified'
      ? t('collections.redirectSignature', {
          status: statusLabel(t, s.redirect),
          signature: signatureWord(t, s.redirectSignature),
        })
      : t('collections.redirect', { status: statusLabel(t, s.redirect) })
    : t('collections.noRedirect');
  const callback = s.callback
    ? t('collections.callback', { status: statusLabel(t, s.callback) })
    : t('collections.noCallback');
  return t('collections.sourcesJoin', { redirect, callback });
}

/** A signature's state in a sentence ("invalid", "missing"): the timeline's badge words, lower-cased there. */
function signatureWord(t: Say['t'], state: string): string {
  return state === 'invalid' || state === 'missing' ? t(`collections.sig.${state}`) : state;
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
  const { t } = useWords();
  const agree = c.sources.agree;
  const detail = sourcesText(t, c);
  const changed = agree === false && changedAfterFinal(c);
  const word = t(
    agree === null
      ? 'collections.noReports'
      : agree
        ? 'collections.agree'
        : changed
          ? 'collections.changedAfterFinal'
          : 'collections.disagree',
  );
  const tone = agree === null ? 'off' : agree ? 'ok' : changed ? 'warn' : 'err';
  // The detail is read after the word (a span has no role, so an aria-label on it would be ignored).
  return (
    <span className={`badge ${tone}`} title={detail}>
      {word}
      <span className="sr-only">: {detail}</span>
    </span>
  );
}
