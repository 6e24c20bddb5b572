// A day typed in the person's order ("12/02/2026" in en-US, "02/12/2026" in fr and en-GB), never in a
// fixed US order: Chromium draws <input type="date"> in its own language, not the window's. The value in
// and out is "YYYY-MM-DD" (the person's calendar day), as before; ISO typed as such is taken too.
import { useEffect, useId, useState, type InputHTMLAttributes } from 'react';
import { useWords } from '../words/index.js';

type Rest = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type' | 'placeholder'>;

export function DateField({
  value,
  onChange,
  ...rest
}: Rest & {
  /** "YYYY-MM-DD", or '' for none. */
  value: string;
  /** Called with "YYYY-MM-DD" (or '' when cleared) once what is typed is a day. */
  onChange: (value: string) => void;
}) {
  const { t, f } = useWords();
  const [text, setText] = useState(() => f.dayText(value));
  const hintId = useId();
  // The value changed from outside (Clear filters, a default), or the person's order did: show it anew.
  useEffect(() => {
    if (f.dayValue(text) !== value) setText(f.dayText(value));
    // Only an outside change of the value (or the format) re-writes what is typed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, f]);
  const pattern = f.dayOrder
    .map((p) => t(p === 'day' ? 'ui.dateField.day' : p === 'month' ? 'ui.dateField.month' : 'ui.dateField.year'))
    .join(f.daySeparator);
  const parsed = f.dayValue(text);
  const invalid = parsed === undefined;
  return (
    <>
      <input
        {...rest}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder={pattern}
        value={text}
        aria-invalid={invalid || rest['aria-invalid'] ? true : undefined}
        aria-describedby={[rest['aria-describedby'], invalid ? hintId : ''].filter(Boolean).join(' ') || undefined}
        onChange={(e) => {
          setText(e.target.value);
          const v = f.dayValue(e.target.value);
          if (v !== undefined) onChange(v);
        }}
        onBlur={(e) => {
          // A day typed in any accepted form is shown back in the person's order.
          if (parsed) setText(f.dayText(parsed));
          rest.onBlur?.(e);
        }}
      />
      {invalid && (
        <span className="field-error" id={hintId} role="alert">
          {t('ui.dateField.invalid', { pattern })}
        </span>
      )}
    </>
  );
}
