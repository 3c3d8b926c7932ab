import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { DENOMINATIONS } from '../../../../shared/denominations';
import { DEFAULT_CURRENCY } from '../../../../shared/schemas/common';
import type { CashUp, CashUpResult, DenominationCounts } from '../../../../shared/schemas/cash-up';
import { useT } from '../../../ui/i18n';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { amountErrorText } from '../../../ui/amount-text';
import { formatMoney, minorToDecimal, parseAmount, useAmountLocale } from '../common/format';
import { Card, PageTitle, QueryState } from '../../../ui/blocks';
import { cashUpQueries, saveCount, saveFloat, tellerSign } from './cash-up.queries';
import { CashUpSheet, outcomeWords, printCashUp } from './cash-up-sheet';
import { SupervisorCashUps } from './cash-up-review';
import { DenominationGrid, gridFrom, readGrid, type GridValues } from './denomination-grid';
import './cash-desk.css';
import './cash-up.css';

/** The cash-up page: a teller balances their drawer; a supervisor signs off the counts tellers signed. */
export function CashUpPage() {
  const { session } = useSession();
  return session?.user.role === 'supervisor' ? <SupervisorCashUps /> : <TellerCashUp />;
}

/** The teller's cash-up of the day, one currency at a time: the float, count and signature beside the sheet. */
function TellerCashUp() {
  const t = useT();
  const api = useApi();
  const [currency, setCurrency] = useState(DEFAULT_CURRENCY);
  const day = useQuery(cashUpQueries.day(api, currency));
  const currencies = [...new Set([...Object.keys(DENOMINATIONS), ...(day.data?.cash_ups.map((c) => c.currency) ?? [])])].sort();
  const current = day.data?.cash_ups.find((c) => c.currency === currency);
  const currencyId = useId();
  return (
    <div className="bo-page cu">
      <PageTitle title={t('cashUp.title')} subtitle={t('cashUp.subtitle')} />
      <div className="cu-toolbar cd-no-print">
        <label htmlFor={currencyId} className="bo-label">
          {t('cashUp.currency')}
        </label>
        <select id={currencyId} className="bo-input cu-currency" value={currency} onChange={(e) => setCurrency(e.target.value)} translate="no">
          {currencies.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        {day.data && day.data.cash_ups.length > 1 && (
          <span className="bo-muted cu-small">
            {t('cashUp.otherCurrencies', { list: day.data.cash_ups.map((c) => c.currency).filter((c) => c !== currency).join(', ') })}
          </span>
        )}
      </div>
      <QueryState query={day}>
        {() =>
          current ? (
            <div className="bo-grid-2 cu-grid">
              <div className="cd-no-print">
                {current.status === 'open' ? (
                  <TellerForms key={`${current.currency}-${current.id ?? 'new'}`} c={current} />
                ) : (
                  <Card title={t('cashUp.locked.title')} testId="cash-up-locked">
                    <p>{t('cashUp.locked.body')}</p>
                  </Card>
                )}
              </div>
              <Card
                title={t('cashUp.sheet.card')}
                testId="cash-up-card"
                actions={
                  <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => printCashUp(current.id ?? `${current.date}-${current.currency}`)}>
                    {t('cashUp.print')}
                  </button>
                }
              >
                <CashUpSheet c={current} printable />
              </Card>
            </div>
          ) : null
        }
      </QueryState>
    </div>
  );
}

/** A refusal shown under a teller's form; `code` marks the grid line at fault. */
type FormError = { text: string; code: string | null };

/** A teller's save (float or count): the answer replaces the day's cash-up, a refusal is kept for the form, naming `field`. */
function useTellerSave<B>(save: (body: B) => Promise<CashUpResult>, field: string, refresh: (next: CashUp) => void) {
  const errorText = useErrorText();
  const [error, setError] = useState<FormError | null>(null);
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: (r) => {
      setError(null);
      refresh(r.cash_up);
    },
    onError: (err) => setError({ text: errorText(err, field), code: null }),
  });
  return { mutation, error, setError };
}

/** The end of a teller's form: the refusal, the save button, and what is saved. */
function FormFoot({ error, errorId, pending, save, saved }: { error: FormError | null; errorId?: string; pending: boolean; save: string; saved: string | null }) {
  return (
    <>
      {error && (
        <p id={errorId} className="bo-field-error" role="alert">
          {error.text}
        </p>
      )}
      <div className="cu-actions">
        <button type="submit" className="bo-btn bo-btn--primary" disabled={pending}>
          {save}
        </button>
        {saved && <span className="bo-muted cu-small">{saved}</span>}
      </div>
    </>
  );
}

function TellerForms({ c }: { c: CashUp }) {
  const t = useT();
  const errorText = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const locale = useAmountLocale();
  const refresh = (next: CashUp) => {
    queryClient.setQueryData(cashUpQueries.day(api, c.currency).queryKey, (old) =>
      old ? { ...old, cash_ups: old.cash_ups.map((x) => (x.currency === next.currency ? next : x)) } : old,
    );
    void queryClient.invalidateQueries({ queryKey: cashUpQueries.all(api) });
  };

  // Opening float: an amount, or the notes and coins handed over.
  const [floatMode, setFloatMode] = useState<'amount' | 'pieces'>(c.float?.denominations ? 'pieces' : 'amount');
  const [floatAmount, setFloatAmount] = useState(c.float && !c.float.denominations ? minorToDecimal(c.float.amount_minor, c.currency) : '');
  const [floatGrid, setFloatGrid] = useState<GridValues>(() => gridFrom(c, c.float?.denominations));
  const {
    mutation: float,
    error: floatError,
    setError: setFloatError,
  } = useTellerSave((body: { amount_minor?: number; denominations?: DenominationCounts }) => saveFloat(api, { currency: c.currency, ...body }), 'amount_minor', refresh);
  const submitFloat = (e: FormEvent) => {
    e.preventDefault();
    if (floatMode === 'amount') {
      const a = parseAmount(floatAmount || '0', c.currency, locale);
      if (!a.ok || a.minor < 0) return setFloatError({ text: a.ok ? t('cashUp.error.amount') : amountErrorText(t, a), code: null });
      float.mutate({ amount_minor: a.minor });
    } else {
      const g = readGrid(c, floatGrid, locale);
      if (!g.ok) return setFloatError({ text: t('cashUp.error.pieces'), code: g.code });
      float.mutate({ denominations: g.counts });
    }
  };

  // The count at close, by denomination.
  const [countGrid, setCountGrid] = useState<GridValues>(() => gridFrom(c, c.count?.denominations));
  const read = readGrid(c, countGrid, locale);
  const saved = c.count ? JSON.stringify(c.count.denominations) : null;
  const dirty = !read.ok || JSON.stringify(read.counts) !== (saved ?? JSON.stringify({}));
  const {
    mutation: count,
    error: countError,
    setError: setCountError,
  } = useTellerSave((denominations: DenominationCounts) => saveCount(api, { currency: c.currency, denominations }), 'denominations', refresh);
  const submitCount = (e: FormEvent) => {
    e.preventDefault();
    if (!read.ok) return setCountError({ text: t('cashUp.error.pieces'), code: read.code });
    count.mutate(read.counts);
  };

  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const sign = useMutation({ mutationFn: () => tellerSign(api, c.currency), onSuccess: (r) => refresh(r.cash_up) });
  const ready = c.float !== null && c.count !== null && !dirty;

  return (
    <>
      <Card title={t('cashUp.float.title')} testId="cash-up-float">
        <form onSubmit={submitFloat} noValidate>
          <fieldset className="cu-modes">
            <legend className="bo-visually-hidden">{t('cashUp.float.how')}</legend>
            <label>
              <input type="radio" name="float-mode" checked={floatMode === 'amount'} onChange={() => setFloatMode('amount')} /> {t('cashUp.float.byAmount')}
            </label>
            <label>
              <input type="radio" name="float-mode" checked={floatMode === 'pieces'} onChange={() => setFloatMode('pieces')} /> {t('cashUp.float.byPieces')}
            </label>
          </fieldset>
          {floatMode === 'amount' ? (
            <div className="cu-field">
              <label htmlFor="cu-float-amount" className="bo-label">
                {t('cashUp.float.amount', { currency: c.currency })}
              </label>
              <input
                id="cu-float-amount"
                className="bo-input"
                inputMode="decimal"
                autoComplete="off"
                value={floatAmount}
                onChange={(e) => setFloatAmount(e.target.value)}
                aria-describedby={floatError ? 'cu-float-error' : undefined}
                aria-invalid={floatError ? true : undefined}
              />
            </div>
          ) : (
            <DenominationGrid c={c} values={floatGrid} onChange={setFloatGrid} idPrefix="cu-float" invalid={floatError?.code ?? null} />
          )}
          <FormFoot
            error={floatError}
            errorId="cu-float-error"
            pending={float.isPending}
            save={t('cashUp.float.save')}
            saved={c.float ? t('cashUp.float.saved', { amount: formatMoney(c.float.amount_minor, c.currency) }) : null}
          />
        </form>
      </Card>

      <Card title={t('cashUp.count.title')} testId="cash-up-count">
        <form onSubmit={submitCount} noValidate>
          <p className="bo-hint">{t('cashUp.count.hint')}</p>
          <DenominationGrid
            c={c}
            values={countGrid}
            onChange={(v) => {
              setCountGrid(v);
              setCountError(null);
            }}
            idPrefix="cu-count"
            invalid={countError?.code ?? null}
          />
          <p className="cu-running" data-testid="cu-running">
            {t('cashUp.count.running', { amount: formatMoney(read.ok ? read.minor : 0, c.currency) })}
          </p>
          <FormFoot error={countError} pending={count.isPending} save={t('cashUp.count.save')} saved={c.count && !dirty ? t('cashUp.count.saved') : null} />
        </form>
      </Card>

      <Card title={t('cashUp.sign.title')} testId="cash-up-sign">
        {c.count && <p className={`cu-outcome cu-diff--${c.outcome ?? 'none'}`}>{outcomeWords(t, c)}</p>}
        {!ready && <p className="bo-hint">{c.float === null ? t('cashUp.sign.needFloat') : c.count === null || dirty ? t('cashUp.sign.needCount') : null}</p>}
        {sign.isError && (
          <p className="bo-field-error" role="alert">
            {errorText(sign.error)}
          </p>
        )}
        {confirming ? (
          <div className="cu-confirm" role="group" aria-labelledby="cu-confirm-text">
            <p id="cu-confirm-text">{t('cashUp.sign.confirm', { currency: c.currency })}</p>
            <div className="cu-actions">
              <button type="button" ref={confirmRef} className="bo-btn bo-btn--primary" disabled={sign.isPending} onClick={() => sign.mutate()}>
                {t('cashUp.sign.yes')}
              </button>
              <button type="button" className="bo-btn bo-btn--secondary" onClick={() => setConfirming(false)}>
                {t('cashUp.sign.cancel')}
              </button>
            </div>
          </div>
        ) : (
          <button type="button" className="bo-btn bo-btn--primary" disabled={!ready} onClick={() => setConfirming(true)}>
            {t('cashUp.sign.button')}
          </button>
        )}
      </Card>
    </>
  );
}
