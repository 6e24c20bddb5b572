// Resolution by a person with a REQUIRED note: the button stays disabled until a note is typed, and the
// server's answer (note too short, operator not set) is shown on the field it names. On a team desk only
// back office and admins are offered it; others see who can. A refusal because it is resolved already
// (by another desk: the team database decides) goes to onRefused, with the note, so the screen can keep
// saying it once the form is gone (the exception is no longer open).
import { useId, useState } from 'react';
import { useDeskAction } from '../../hooks.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { useMay, WhoMay } from '../../role.js';

/** The database refused this desk's resolution: what it said, and the note that was not recorded. */
export interface Refusal {
  message: string;
  note: string;
}

export function RefusedResolution({ refusal }: { refusal: Refusal }) {
  return (
    <div className="banner error" role="alert">
      <div>
        <strong>Your resolution was not recorded: </strong>
        {refusal.message}
        <div className="cell-note">
          Your note (not recorded): <q>{refusal.note}</q>
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
  /** Not recorded because it is no longer open (resolved meanwhile): the message and the note typed. */
  onRefused?: (message: string, note: string) => void;
}) {
  const resolve = useDeskAction('reconcile.resolve');
  const [note, setNote] = useState('');
  const [touched, setTouched] = useState(false);
  const formId = useId();
  const may = useMay('resolveExceptions');
  const empty = note.trim().length === 0;
  const fieldError =
    resolve.error?.fields?.note ?? (resolve.error?.field === 'note' ? resolve.error.message : undefined);
  const localError =
    touched && empty ? 'Resolution note is required: say what was checked and why this is resolved.' : undefined;
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
          if (e.kind === 'conflict') onRefused?.(e.message, note);
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
      <Field
        label="Resolution note"
        error={fieldError ?? localError}
        hint="Required. Recorded with your operator name; history is never changed."
      >
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
      <ErrorBanner error={otherError} title="Not resolved" />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={empty || resolve.pending}>
          {resolve.pending ? 'Resolving…' : 'Resolve with note'}
        </button>
      </div>
    </form>
  );
}
