import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import type { PublicCheckoutOptions } from '../../shared/schemas/checkout';
import { ApiError, refreshSession, startMomoAttempt } from './api';
import { OPERATOR_LABELS, formatMoney } from './format';
import { Spinner } from './icons';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';
import type { RailPrice } from './method-picker';
import type { MomoAttemptRef } from './momo-declined';

/** The first Mobile Money step: network and number, which starts the attempt (the approval step is momo-payment.tsx). */

type ChoiceOption = PublicCheckoutOptions['momo_operators'][number];
type Attempt = MomoAttemptRef;
/** Ghana mobile number as the server accepts it: 0XXXXXXXXX or 233XXXXXXXXX (spaces, dashes, + tolerated). */
export function normaliseGhanaPhone(input: string): string | null {
  const s = input.replace(/[\s-().]/g, '').replace(/^\+/, '');
  return /^(0\d{9}|233\d{9})$/.test(s) ? s : null;
}

/** Network from the number prefix, to preselect it; the payer can always change it. */
function guessOperator(phone: string): string | null {
  const s = phone.replace(/\D/g, '');
  const local = s.startsWith('233') ? `0${s.slice(3)}` : s;
  const prefix = local.slice(0, 3);
  if (['024', '054', '055', '059', '025', '053'].includes(prefix)) return 'mtn';
  if (['020', '050'].includes(prefix)) return 'telecel';
  if (['026', '056', '027', '057'].includes(prefix)) return 'airteltigo';
  return null;
}

export function MomoForm(props: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  operators: ChoiceOption[];
  phone: string;
  operator: string;
  onPhone: (v: string) => void;
  onOperator: (v: string) => void;
  onStarted: (a: Attempt) => void;
  onBack: () => void;
  focusHeading: boolean;
}) {
  const { sessionId, price, currency, operators, phone, operator } = props;
  const qc = useQueryClient();
  const explain = usePaymentErrors(sessionId);
  const id = useId();
  const heading = useFocusOnChange<HTMLHeadingElement>(null, props.focusHeading);
  const [errors, setErrors] = useState<{ phone?: string; operator?: string }>({});
  const [formError, setFormError] = useState<string | null>(null);
  const phoneRef = useRef<HTMLInputElement>(null);
  const operatorRef = useRef<HTMLSelectElement>(null);

  const start = useMutation({
    mutationFn: (input: { operator: string; phone: string }) =>
      startMomoAttempt(sessionId, { amount_minor: price.totalMinor, operator: input.operator as 'mtn', phone: input.phone }),
    onSuccess: (res, input) => {
      void refreshSession(qc, sessionId);
      props.onStarted({
        reference: res.attempt_reference,
        operator: res.instructions.operator ?? input.operator,
        last4: res.instructions.phone_last4 ?? input.phone.slice(-4),
      });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'INVALID_ARGUMENT' && /phone/i.test(err.message)) {
        setErrors({ phone: 'Enter a Ghana mobile number, for example 024 123 4567.' });
        phoneRef.current?.focus();
        return;
      }
      setFormError(explain(err));
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    const normalised = normaliseGhanaPhone(phone);
    const next: typeof errors = {};
    if (!operator) next.operator = 'Choose your Mobile Money network.';
    if (!normalised) next.phone = phone.trim() ? 'Enter a Ghana mobile number, for example 024 123 4567.' : 'Enter your Mobile Money number.';
    setErrors(next);
    if (next.operator) return operatorRef.current?.focus();
    if (next.phone || !normalised) return phoneRef.current?.focus();
    start.mutate({ operator, phone: normalised });
  };

  return (
    <form className="pay-form" onSubmit={submit} noValidate aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} ref={heading} tabIndex={-1} className="step-title">
        Pay with Mobile Money
      </h2>
      <p className="step-lead">We will send a payment request to your phone. Approve it there to complete the payment.</p>

      <div className={`field${errors.operator ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-op`}>Network</label>
        <div className="select-wrap">
          <select
            id={`${id}-op`}
            ref={operatorRef}
            name="operator"
            value={operator}
            onChange={(e) => {
              props.onOperator(e.target.value);
              setErrors((x) => ({ ...x, operator: undefined }));
            }}
            aria-invalid={errors.operator ? true : undefined}
            aria-describedby={errors.operator ? `${id}-op-err` : undefined}
            required
          >
            <option value="" disabled>
              Choose network
            </option>
            {operators.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label || OPERATOR_LABELS[o.value] || o.value}
              </option>
            ))}
          </select>
        </div>
        {errors.operator && (
          <p className="field-error" id={`${id}-op-err`}>
            {errors.operator}
          </p>
        )}
      </div>

      <div className={`field${errors.phone ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-phone`}>Mobile Money number</label>
        <input
          id={`${id}-phone`}
          ref={phoneRef}
          name="phone"
          type="tel"
          inputMode="tel"
          autoComplete="tel-national"
          placeholder="024 123 4567"
          value={phone}
          onChange={(e) => {
            const v = e.target.value;
            props.onPhone(v);
            setErrors((x) => ({ ...x, phone: undefined }));
            if (!operator) {
              const guess = guessOperator(v);
              if (guess && operators.some((o) => o.value === guess)) props.onOperator(guess);
            }
          }}
          aria-invalid={errors.phone ? true : undefined}
          aria-describedby={`${id}-phone-hint${errors.phone ? ` ${id}-phone-err` : ''}`}
          required
        />
        <p className="field-hint" id={`${id}-phone-hint`}>
          Ghana number: 10 digits starting with 0 (e.g. 024 123 4567) or 233…
        </p>
        {errors.phone && (
          <p className="field-error" id={`${id}-phone-err`}>
            {errors.phone}
          </p>
        )}
      </div>

      {formError && (
        <div className="notice notice-error" role="alert">
          {formError}
        </div>
      )}

      <button type="submit" className="btn btn-primary btn-block" disabled={start.isPending}>
        {start.isPending ? (
          <>
            <Spinner /> Sending request…
          </>
        ) : (
          <>Pay {formatMoney(price.totalMinor, currency)}</>
        )}
      </button>
      <button type="button" className="btn btn-link" onClick={props.onBack}>
        ← Choose another method
      </button>
    </form>
  );
}
