import { useId } from 'react';

/** Labelled form fields of the filter rows and admin forms. */
export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: Array<{ value: string; label: string }>;
}) {
  const id = useId();
  return (
    <div className="bo-filter">
      <label htmlFor={id} className="bo-filter__label">
        {label}
      </label>
      <select id={id} className="bo-input" value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function InputField({
  label,
  value,
  onChange,
  type = 'text',
  placeholder,
  wide,
  inputMode,
  error,
  hint,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  type?: string;
  placeholder?: string;
  /** Takes the free width of the filter row (a search box). */
  wide?: boolean;
  inputMode?: 'decimal' | 'numeric' | 'text';
  /** Shown under the field and tied to it (aria-describedby). */
  error?: string | undefined;
  /** Guidance under the field, tied to it like an error but not one (the field is valid). */
  hint?: string | undefined;
}) {
  const id = useId();
  const note = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className={`bo-filter${wide ? ' bo-filter--wide' : ''}`}>
      <label htmlFor={id} className="bo-filter__label">
        {label}
      </label>
      <input
        id={id}
        className="bo-input"
        type={type}
        value={value}
        placeholder={placeholder}
        inputMode={inputMode}
        aria-invalid={error ? true : undefined}
        aria-describedby={note}
        onChange={(e) => onChange(e.target.value)}
      />
      {error && (
        <span id={`${id}-error`} className="bo-filter__error">
          {error}
        </span>
      )}
      {!error && hint && (
        <span id={`${id}-hint`} className="bo-filter__hint">
          {hint}
        </span>
      )}
    </div>
  );
}
