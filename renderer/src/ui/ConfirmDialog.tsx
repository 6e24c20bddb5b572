// A modal question with two answers, on the native <dialog> (focus is trapped and returned, Escape
// answers "no"). Shared by screens that must ask before doing something costly.
import { useEffect, useRef, type ReactNode } from 'react';
import { useWords } from '../words/index.js';

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useWords();
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      cancel.current?.focus(); // the safe answer is the default
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="confirm-dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-dialog-title">{title}</h2>
      {children && <div className="confirm-dialog-body">{children}</div>}
      <div className="row confirm-dialog-actions">
        <button type="button" className="primary" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          {cancelLabel ?? t('ui.cancel')}
        </button>
      </div>
    </dialog>
  );
}
