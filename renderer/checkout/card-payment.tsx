import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { errorField, payByCard, refreshSession } from './api';
import { useT } from '../ui/i18n';
import { describeDecline, formatMoney } from './format';
import { ErrorNotice, PendingLabel } from './notice';
import type { RailPrice } from './method-picker';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';

/** Sandbox cards (test_simulation): what each number does. */
const TEST_CARDS = [
  { number: '4242 4242 4242 4242', outcome: 'checkout.card.test.approved', ok: true },
  { number: '4000 0000 0000 0002', outcome: 'checkout.card.test.declined', ok: false },
  { number: '4000 0000 0000 9995', outcome: 'checkout.card.test.insufficientFunds', ok: false },
  { number: '5555 5555 5555 4444', outcome: 'checkout.card.test.approvedMastercard', ok: true },
  { number: '4000 0000 0000 0069', outcome: 'checkout.card.test.expiredCard', ok: false },
] as const;

function groupCardNumber(v: string): string {
  return v
    .replace(/\D/g, '')
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

function formatExpiry(v: string, previous: string): string {
  const deleting = v.length < previous.length;
  let d = v.replace(/\D/g, '').slice(0, 4);
  if (d.length === 1 && Number(d) > 1) d = `0${d}`;
  if (d.length < 2) return d;
  if (d.length === 2) return deleting ? d : `${d} / `;
  return `${d.slice(0, 2)} / ${d.slice(2)}`;
}

function parseExpiry(v: string): { month: number; year: number } | null {
  const m = /^(\d{2})\s*\/\s*(\d{2}|\d{4})$/.exec(v.trim());
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

type Field = 'number' | 'expiry' | 'cvc';
/** API field → the form field its error belongs beside. */
const CARD_FIELDS: Record<string, Field> = { card_number: 'number', expiry_month: 'expiry', expiry_year: 'expiry', cvc: 'cvc' };

/**
 * Card entry for test integrations only (card_collection_mode `test_simulation`). Card data lives
 * in this component's state only long enough to send it; it is never logged, stored, or put in a
 * URL, and the browser is told not to save it.
 */
export function CardPayment({
  sessionId,
  price,
  currency,
  testMode,
  onBack,
}: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  testMode: boolean;
  onBack: () => void;
}) {
  const qc = useQueryClient();
  const t = useT();
  const explain = usePaymentErrors(sessionId);
  const id = useId();
  const heading = useFocusOnChange<HTMLHeadingElement>();
  const [number, setNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [result, setResult] = useState<string | null>(null);
  const refs = { number: useRef<HTMLInputElement>(null), expiry: useRef<HTMLInputElement>(null), cvc: useRef<HTMLInputElement>(null) };

  const pay = useMutation({
    mutationFn: (input: Parameters<typeof payByCard>[1]) => payByCard(sessionId, input),
    onSuccess: (res) => {
      setCvc('');
      if (res.status === 'succeeded') {
        setNumber('');
        setExpiry('');
        setResult(null);
      } else {
        setResult(
          res.brand
            ? t('checkout.card.notCharged', { reason: describeDecline(t, res.decline_reason), brand: res.brand, last4: res.last4 })
            : t('checkout.card.notChargedNoBrand', { reason: describeDecline(t, res.decline_reason), last4: res.last4 }),
        );
        refs.number.current?.focus();
      }
      void refreshSession(qc, sessionId);
    },
    onError: (err) => {
      setCvc('');
      // A refused field gets its sentence beside it; anything else goes above the button.
      const field = CARD_FIELDS[errorField(err) ?? ''];
      if (field) {
        setErrors({ [field]: explain(err) });
        refs[field].current?.focus();
      } else setResult(explain(err));
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setResult(null);
    const digits = number.replace(/\D/g, '');
    const exp = parseExpiry(expiry);
    const next: Partial<Record<Field, string>> = {};
    if (!/^\d{12,19}$/.test(digits)) next.number = t('checkout.card.enterNumber');
    if (!exp) next.expiry = t('checkout.card.enterExpiry');
    else {
      const now = new Date();
      if (exp.year < now.getFullYear() || (exp.year === now.getFullYear() && exp.month < now.getMonth() + 1)) next.expiry = t('checkout.decline.expiredCard');
    }
    if (!/^\d{3,4}$/.test(cvc)) next.cvc = t('checkout.card.enterCvc');
    setErrors(next);
    const first = (['number', 'expiry', 'cvc'] as const).find((f) => next[f]);
    if (first) return refs[first].current?.focus();
    if (!exp) return;
    pay.mutate({
      amount_minor: price.totalMinor,
      card_number: digits,
      expiry_month: exp.month,
      expiry_year: exp.year,
      cvc,
      ...(name.trim() ? { cardholder_name: name.trim() } : {}),
    });
  };

  const describedBy = (f: Field, hint?: string) => [hint, errors[f] ? `${id}-${f}-err` : null].filter(Boolean).join(' ') || undefined;

  return (
    <form className="pay-form" onSubmit={submit} noValidate autoComplete="off" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} ref={heading} tabIndex={-1} className="step-title">
        {t('checkout.card.title')}
      </h2>
      {testMode && (
        <div className="test-sim" role="note" aria-labelledby={`${id}-sim`}>
          <p id={`${id}-sim`} className="test-sim-title">
            <span className="badge badge-test">{t('checkout.card.testSimulation')}</span> {t('checkout.card.noRealCard')}
          </p>
          <p>{t('checkout.card.testCardsLead')}</p>
          <ul className="test-cards">
            {TEST_CARDS.map((c) => (
              <li key={c.number}>
                <button
                  type="button"
                  className="test-card"
                  onClick={() => {
                    setNumber(c.number);
                    setErrors((x) => ({ ...x, number: undefined }));
                    refs.expiry.current?.focus();
                  }}
                >
                  {/* The accessible name is the visible text (WCAG 2.5.3), with the verb added for screen readers. */}
                  <span className="visually-hidden">{t('checkout.card.useTestCard')} </span>
                  <span className="mono" translate="no">
                    {c.number}
                  </span>
                  <span className="visually-hidden">: </span>
                  <span className={`test-card-outcome${c.ok ? ' is-ok' : ''}`}>{t(c.outcome)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}

      <div className={`field${errors.number ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-number`}>{t('checkout.card.number')}</label>
        <input
          id={`${id}-number`}
          ref={refs.number}
          name="card-number-sim"
          inputMode="numeric"
          autoComplete="off"
          placeholder="1234 1234 1234 1234"
          value={number}
          onChange={(e) => {
            setNumber(groupCardNumber(e.target.value));
            setErrors((x) => ({ ...x, number: undefined }));
          }}
          aria-invalid={errors.number ? true : undefined}
          aria-describedby={describedBy('number')}
          className="mono"
        />
        {errors.number && (
          <p className="field-error" id={`${id}-number-err`}>
            {errors.number}
          </p>
        )}
      </div>
      <div className="field-row">
        <div className={`field${errors.expiry ? ' has-error' : ''}`}>
          <label htmlFor={`${id}-expiry`}>{t('checkout.card.expiry')}</label>
          <input
            id={`${id}-expiry`}
            ref={refs.expiry}
            name="card-expiry-sim"
            inputMode="numeric"
            autoComplete="off"
            placeholder={t('checkout.card.expiryPlaceholder')}
            value={expiry}
            onChange={(e) => {
              setExpiry(formatExpiry(e.target.value, expiry));
              setErrors((x) => ({ ...x, expiry: undefined }));
            }}
            aria-invalid={errors.expiry ? true : undefined}
            aria-describedby={describedBy('expiry')}
          />
          {errors.expiry && (
            <p className="field-error" id={`${id}-expiry-err`}>
              {errors.expiry}
            </p>
          )}
        </div>
        <div className={`field${errors.cvc ? ' has-error' : ''}`}>
          <label htmlFor={`${id}-cvc`}>{t('checkout.card.cvc')}</label>
          <input
            id={`${id}-cvc`}
            ref={refs.cvc}
            name="card-cvc-sim"
            inputMode="numeric"
            autoComplete="off"
            placeholder={t('checkout.card.cvcPlaceholder')}
            maxLength={4}
            value={cvc}
            onChange={(e) => {
              setCvc(e.target.value.replace(/\D/g, '').slice(0, 4));
              setErrors((x) => ({ ...x, cvc: undefined }));
            }}
            aria-invalid={errors.cvc ? true : undefined}
            aria-describedby={describedBy('cvc', `${id}-cvc-hint`)}
          />
          <p className="field-hint" id={`${id}-cvc-hint`}>
            {t('checkout.card.cvcHint')}
          </p>
          {errors.cvc && (
            <p className="field-error" id={`${id}-cvc-err`}>
              {errors.cvc}
            </p>
          )}
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-name`}>
          {t('checkout.card.name')} <span className="optional">{t('checkout.optional')}</span>
        </label>
        <input id={`${id}-name`} name="card-name-sim" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
      </div>

      {result && (
        <ErrorNotice testId="card-result">{result}</ErrorNotice>
      )}

      <button type="submit" className="btn btn-primary btn-block" disabled={pay.isPending}>
        <PendingLabel pending={pay.isPending} busy={t('checkout.card.processing')} idle={t('checkout.payAmount', { amount: formatMoney(price.totalMinor, currency) })} />
      </button>
      <button type="button" className="btn btn-link" onClick={onBack}>
        {t('checkout.chooseAnother')}
      </button>
    </form>
  );
}
