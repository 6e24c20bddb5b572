// Resolution by a person with a REQUIRED note: the button stays disabled until a note is typed, and the
// server's answer (note too short, operator not set) is shown on the field it names. On a team desk only
// back office and admins are offered it; others see who can. A refusal because it is resolved already
// (by another desk: the team database decides) goes to onRefused, with the note, so the screen can keep
// saying it once the form is gone (the exception is no longer open).
import { useId, useState } from 'react';
import { useDeskAction } from '../../hooks.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { useMay, WhoMay } from '../../role.js';
import { errorText, fieldErrorText, type DeskError } from '../../desk.js';
import { useWords } from '../../words/index.js';

/** The database refused this desk's resolution: what it said (its words), and the note that was not recorded. */
export interface Refusal {
  error: DeskError;
  note: string;
}

export function RefusedResolution({ refusal }: { refusal: Refusal }) {
  const { t, say } = useWords();
  return (
    <div className="banner error" role="alert">
      <div>
        <strong>{t('recon.notRecorded')} </strong>
        {errorText(say, refusal.error)}
        <div className="cell-note">
          {t('recon.yourNote')} <q translate="no">{refusal.note}</q>
        </div>
      </div>
    </div>
  );
}

export function ResolveForm({
  target,
  label,
  onResolved,
  onRefused,
}: {
  target: { collectionId: number } | { orphanEventId: number };
  label: string;
  onResolved: (note: string) => void;
  /** Not recorded because it is no longer open (resolved meanwhile): the refusal and the note typed. */
  onRefused?: (error: DeskError, note: string) => void;
}) {
  const resolve = useDeskAction('reconcile.resolve');
  const [note, setNote] = useState('');
  const [touched, setTouched] = useState(false);
  const formId = useId();
  const may = useMay('resolveExceptions');
  const empty = note.trim().length === 0;
  const { t, say } = useWords();
  const fieldError = fieldErrorText(say, resolve.error, 'note');
  const localError = touched && empty ? t('recon.noteRequired') : undefined;
  const otherError = resolve.error && !fieldError ? resolve.error : undefined;

  const submit = async () => {
    setTouched(true);
    if (empty) return;
    const r = await resolve.run(
      { ...target, note },
      {
        // Told from the call, not from this form's state: the other desk's resolution can reach this
        // screen before the answer does, and then the form is gone (the exception is no longer open).
        // The screen is told as it was when this was pressed (its collection, not one chosen since).
        // The note stays in the field while the form is there (a refusal wipes nothing typed).
        onError: (e) => {
          if (e.kind === 'conflict') onRefused?.(e, note);
        },
      },
    );
    if (r) {
      setNote('');
      setTouched(false);
      onResolved(note);
    }
  };

  if (!may) return <WhoMay action="resolveExceptions" />;
  return (
    <form
      aria-label={label}
      id={formId}
      className="resolve-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field label={t('recon.note')} error={fieldError ?? localError} hint={t('recon.noteHint')}>
        <textarea
          name="note"
          className="note-box"
          value={note}
          required
          maxLength={2000}
          onChange={(e) => {
            setNote(e.target.value);
            if (resolve.error) resolve.clearError();
          }}
          onBlur={() => setTouched(true)}
        />
      </Field>
      <ErrorBanner error={otherError} title={t('recon.notResolved')} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={empty || resolve.pending}>
          {t(resolve.pending ? 'recon.resolving' : 'recon.resolveWithNote')}
        </button>
      </div>
    </form>
  );
}
