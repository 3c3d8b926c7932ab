import { useId, type InputHTMLAttributes } from 'react';

/**
 * Labelled form fields. One text field in two looks: `form` (a stacked field of the sign-in
 * and password forms) and `filter` (a field of the back office's filter rows and admin forms,
 * `InputField`). Both tie the error or hint under the field to it (aria-describedby).
 */
const LOOKS = {
  form: { box: 'ui-field', label: 'ui-field__label', input: 'ui-field__input', error: 'ui-field__error', hint: 'ui-field__hint' },
  filter: { box: 'bo-filter', label: 'bo-filter__label', input: 'bo-input', error: 'bo-filter__error', hint: 'bo-filter__hint' },
} as const;

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  value: string;
  onChange(value: string): void;
  /** Shown under the field and announced with it. */
  error?: string | undefined;
  /** Guidance under the field, tied to it like an error but not one (the field is valid). */
  hint?: string | undefined;
  look?: keyof typeof LOOKS;
  /** Takes the free width of the filter row (a search box). */
  wide?: boolean;
}

export function TextField({ label, value, onChange, error, hint, look = 'form', wide, id, ...rest }: TextFieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const css = LOOKS[look];
  const note = error ? `${inputId}-error` : hint ? `${inputId}-hint` : undefined;
  return (
    <div className={wide ? `${css.box} ${css.box}--wide` : css.box}>
      <label htmlFor={inputId} className={css.label}>
        {label}
      </label>
      <input
        id={inputId}
        className={css.input}
        type={look === 'filter' ? 'text' : undefined}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={note}
        onChange={(e) => onChange(e.target.value)}
        {...rest}
      />
      {error && (
        <span id={`${inputId}-error`} className={css.error}>
          {error}
        </span>
      )}
      {!error && hint && (
        <span id={`${inputId}-hint`} className={css.hint}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** The filter-row look of TextField. */
export function InputField(props: Omit<TextFieldProps, 'look'>) {
  return <TextField look="filter" {...props} />;
}

export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  /** `data`: the label is a record's own (a merchant's name, a URL), shown as written and never translated. */
  options: Array<{ value: string; label: string; data?: boolean }>;
}) {
  const id = useId();
  return (
    <div className="bo-filter">
      <label htmlFor={id} className="bo-filter__label">
        {label}
      </label>
      <select id={id} className="bo-input" value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value} translate={o.data ? 'no' : undefined}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
