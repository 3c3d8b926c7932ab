import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { momoCountry, type MomoCountry } from '../../shared/countries';
import { ApiError, refreshSession, startMomoAttempt } from './api';
import { useT, type T } from '../ui/i18n';
import { countryName, formatMoney, networkName, phoneFormat } from './format';
import { ErrorNotice, PendingLabel } from './notice';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';
import type { RailPrice } from './method-picker';
import type { MomoAttemptRef } from './momo-declined';

/**
 * The first Mobile Money step: country (when the session's currency has several), network and
 * number, which starts the attempt (the approval step is momo-payment.tsx). The number is only
 * checked for its length here; the server reads it with the country's rules (libphonenumber-js,
 * kept off this page so its first view stays light) and names the country's format when it
 * refuses it.
 */

type Attempt = MomoAttemptRef;

/** Enough digits to be a mobile number anywhere (6 to 15, E.164's bound), spaces, dashes and a + allowed. */
export function plausiblePhone(input: string): boolean {
  const s = input.trim();
  return /^\+?[\d\s().-]+$/.test(s) && /^\d{6,15}$/.test(s.replace(/\D/g, ''));
}

/** Ghana's networks from the number prefix, to preselect one; the payer can always change it. */
function guessOperator(country: string, phone: string): string | null {
  if (country !== 'GH') return null;
  const s = phone.replace(/\D/g, '');
  const local = s.startsWith('233') ? `0${s.slice(3)}` : s;
  const prefix = local.slice(0, 3);
  if (['024', '054', '055', '059', '025', '053'].includes(prefix)) return 'mtn';
  if (['020', '050'].includes(prefix)) return 'telecel';
  if (['026', '056', '027', '057'].includes(prefix)) return 'airteltigo';
  return null;
}

const wrongNumber = (t: T, c: MomoCountry | undefined) =>
  c ? t('checkout.momo.wrongNumber', { country: countryName(t, c), example: c.phoneExample, format: phoneFormat(t, c) }) : t('checkout.momo.enterNumber');

export function MomoForm(props: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  countries: string[];
  country: string;
  phone: string;
  operator: string;
  onCountry: (v: string) => void;
  onPhone: (v: string) => void;
  onOperator: (v: string) => void;
  onStarted: (a: Attempt) => void;
  onBack: () => void;
  focusHeading: boolean;
}) {
  const { sessionId, price, currency, phone, operator } = props;
  const t = useT();
  const countries = props.countries.map(momoCountry).filter((c): c is MomoCountry => !!c);
  const country = countries.find((c) => c.code === props.country) ?? countries[0];
  const operators = country?.networks ?? [];
  const qc = useQueryClient();
  const explain = usePaymentErrors(sessionId);
  const id = useId();
  const heading = useFocusOnChange<HTMLHeadingElement>(null, props.focusHeading);
  const [errors, setErrors] = useState<{ phone?: string; operator?: string }>({});
  const [formError, setFormError] = useState<string | null>(null);
  const phoneRef = useRef<HTMLInputElement>(null);
  const operatorRef = useRef<HTMLSelectElement>(null);

  const start = useMutation({
    mutationFn: (input: { operator: string; phone: string; country: string }) =>
      startMomoAttempt(sessionId, { amount_minor: price.totalMinor, operator: input.operator, phone: input.phone, country: input.country }),
    onSuccess: (res, input) => {
      void refreshSession(qc, sessionId);
      props.onStarted({
        reference: res.attempt_reference,
        operator: res.instructions.operator ?? input.operator,
        last4: res.instructions.phone_last4 ?? input.phone.replace(/\D/g, '').slice(-4),
      });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'INVALID_ARGUMENT' && /^phone/i.test(err.message)) {
        setErrors({ phone: wrongNumber(t, country) });
        phoneRef.current?.focus();
        return;
      }
      setFormError(explain(err));
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    if (!country) return;
    const next: typeof errors = {};
    if (!operator) next.operator = t('checkout.momo.chooseNetworkError');
    if (!plausiblePhone(phone)) next.phone = phone.trim() ? wrongNumber(t, country) : t('checkout.momo.enterNumber');
    setErrors(next);
    if (next.operator) return operatorRef.current?.focus();
    if (next.phone) return phoneRef.current?.focus();
    start.mutate({ operator, phone: phone.trim(), country: country.code });
  };

  return (
    <form className="pay-form" onSubmit={submit} noValidate aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} ref={heading} tabIndex={-1} className="step-title">
        {t('checkout.momo.title')}
      </h2>
      <p className="step-lead">{t('checkout.momo.lead')}</p>

      {!country && (
        <ErrorNotice>{t('checkout.momo.noCountry', { currency })}</ErrorNotice>
      )}

      {countries.length > 1 && (
        <div className="field">
          <label htmlFor={`${id}-country`}>{t('checkout.momo.country')}</label>
          <div className="select-wrap">
            <select
              id={`${id}-country`}
              name="country"
              value={country?.code ?? ''}
              onChange={(e) => {
                props.onCountry(e.target.value);
                setErrors({});
              }}
            >
              {countries.map((c) => (
                <option key={c.code} value={c.code}>
                  {countryName(t, c)}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}

      <div className={`field${errors.operator ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-op`}>{t('checkout.momo.network')}</label>
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
              {t('checkout.momo.chooseNetwork')}
            </option>
            {operators.map((o) => (
              <option key={o.value} value={o.value}>
                {networkName(t, o.value)}
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
        <label htmlFor={`${id}-phone`}>{t('checkout.momo.number')}</label>
        <input
          id={`${id}-phone`}
          ref={phoneRef}
          name="phone"
          type="tel"
          inputMode="tel"
          autoComplete="tel-national"
          placeholder={country?.phoneExample}
          value={phone}
          onChange={(e) => {
            const v = e.target.value;
            props.onPhone(v);
            setErrors((x) => ({ ...x, phone: undefined }));
            if (!operator && country) {
              const guess = guessOperator(country.code, v);
              if (guess && operators.some((o) => o.value === guess)) props.onOperator(guess);
            }
          }}
          aria-invalid={errors.phone ? true : undefined}
          aria-describedby={`${id}-phone-hint${errors.phone ? ` ${id}-phone-err` : ''}`}
          required
        />
        <p className="field-hint" id={`${id}-phone-hint`}>
          {country ? t('checkout.momo.numberHint', { country: countryName(t, country), format: phoneFormat(t, country), example: country.phoneExample }) : ''}
        </p>
        {errors.phone && (
          <p className="field-error" id={`${id}-phone-err`}>
            {errors.phone}
          </p>
        )}
      </div>

      {formError && (
        <ErrorNotice>{formError}</ErrorNotice>
      )}

      <button type="submit" className="btn btn-primary btn-block" disabled={start.isPending || !country}>
        <PendingLabel pending={start.isPending} busy={t('checkout.momo.sending')} idle={t('checkout.payAmount', { amount: formatMoney(price.totalMinor, currency) })} />
      </button>
      <button type="button" className="btn btn-link" onClick={props.onBack}>
        {t('checkout.chooseAnother')}
      </button>
    </form>
  );
}
