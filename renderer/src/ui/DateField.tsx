// A day typed in the person's order ("12/02/2026" in en-US, "02/12/2026" in fr and en-GB), never in a
// fixed US order: Chromium draws <input type="date"> in its own language, not the window's. The value in
// and out is "YYYY-MM-DD" (the person's calendar day), as before; ISO typed as such is taken too.
import { useId, useState, type InputHTMLAttributes } from 'react';
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
  // What is typed, with the value and formats it was typed against. A value changed from outside (Clear
  // filters, a default) or another order of the day (the language changed) shows anew, set while
  // rendering as React advises for state derived from props.
  const [typed, setTyped] = useState(() => ({ text: f.dayText(value), value, f }));
  let text = typed.text;
  if (typed.value !== value || typed.f !== f) {
    text = typed.f === f && f.dayValue(typed.text) === value ? typed.text : f.dayText(value);
    setTyped({ text, value, f });
  }
  const hintId = useId();
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
          const v = f.dayValue(e.target.value);
          setTyped({ text: e.target.value, value: v ?? value, f });
          if (v !== undefined) onChange(v);
        }}
        onBlur={(e) => {
          // A day typed in any accepted form is shown back in the person's order.
          if (parsed) setTyped({ text: f.dayText(parsed), value, f });
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
