import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { DENOMINATIONS } from '../../../../shared/denominations';
import { DEFAULT_CURRENCY } from '../../../../shared/schemas/common';
import type { CashUp, CashUpStatus, DenominationCounts } from '../../../../shared/schemas/cash-up';
import { useT } from '../../../ui/i18n';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { amountErrorText } from '../../../ui/amount-text';
import { formatDateTime, formatMoney, minorToDecimal, parseAmount, useAmountLocale } from '../common/format';
import { Card, DataTable, Empty, PageTitle, QueryState, Tabs } from '../../../ui/blocks';
import { cashUpQueries, saveCount, saveFloat, supervisorSignOff, tellerSign } from './cash-up.queries';
import { CashUpSheet, denominationLabel, outcomeWords, signedMoney } from './cash-up-sheet';
import { printPart } from './deposit-receipt';
import './cash-desk.css';
import './cash-up.css';

/** The cash-up page: a teller balances their drawer; a supervisor signs off the counts tellers signed. */
export function CashUpPage() {
  const { session } = useSession();
  return session?.user.role === 'supervisor' ? <SupervisorCashUps /> : <TellerCashUp />;
}

/** Prints the page: its one printable part is the cash-up sheet (Ctrl+P prints the same). */
const print = (id: string) => void printPart('receipt', `cash-up-${id}`.replace(/[^A-Za-z0-9_-]/g, '-'));

// ------------------------------------------------------------------ teller

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
                  <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => print(current.id ?? `${current.date}-${current.currency}`)}>
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

/** Inputs of a denomination grid: pieces per code (the `total` line holds a typed amount). */
type GridValues = Record<string, string>;

function gridFrom(c: CashUp, counts: DenominationCounts | null | undefined): GridValues {
  const out: GridValues = {};
  for (const d of c.denominations) {
    const n = counts?.[d.code];
    out[d.code] = n === undefined ? '' : d.kind === 'total' ? minorToDecimal(n, c.currency) : String(n);
  }
  return out;
}

/** The grid's counts, or the first line that is not a whole number of pieces (or, for `total`, an amount). */
function readGrid(c: CashUp, values: GridValues, locale: ReturnType<typeof useAmountLocale>): { ok: true; counts: DenominationCounts; minor: number } | { ok: false; code: string } {
  const counts: DenominationCounts = {};
  let minor = 0;
  for (const d of c.denominations) {
    const raw = (values[d.code] ?? '').trim();
    if (!raw) continue;
    if (d.kind === 'total') {
      const a = parseAmount(raw, c.currency, locale);
      if (!a.ok || a.minor < 0) return { ok: false, code: d.code };
      counts[d.code] = a.minor;
      minor += a.minor;
    } else {
      if (!/^\d{1,7}$/.test(raw)) return { ok: false, code: d.code };
      counts[d.code] = Number(raw);
      minor += Number(raw) * d.value_minor;
    }
  }
  return { ok: true, counts, minor };
}

function DenominationGrid({ c, values, onChange, idPrefix, invalid }: { c: CashUp; values: GridValues; onChange: (v: GridValues) => void; idPrefix: string; invalid: string | null }) {
  const t = useT();
  const locale = useAmountLocale();
  return (
    <table className="cu-grid-table">
      <thead>
        <tr>
          <th scope="col">{t('cashUp.count.denomination')}</th>
          <th scope="col" className="num">
            {c.denominations.length === 1 ? t('cashUp.count.amount') : t('cashUp.count.pieces')}
          </th>
          <th scope="col" className="num">
            {t('cashUp.count.value')}
          </th>
        </tr>
      </thead>
      <tbody>
        {c.denominations.map((d) => {
          const id = `${idPrefix}-${d.code}`;
          const raw = values[d.code] ?? '';
          const line = d.kind === 'total' ? parseAmount(raw || '0', c.currency, locale) : null;
          const value = d.kind === 'total' ? (line?.ok ? line.minor : 0) : /^\d+$/.test(raw.trim()) ? Number(raw) * d.value_minor : 0;
          return (
            <tr key={d.code} className={d.kind === 'coin' && c.denominations[c.denominations.indexOf(d) - 1]?.kind === 'note' ? 'cu-grid-table__first-coin' : undefined}>
              <th scope="row">
                <label htmlFor={id}>{denominationLabel(t, d, c.currency)}</label>
              </th>
              <td className="num">
                <input
                  id={id}
                  className={`bo-input cu-pieces${d.kind === 'total' ? ' cu-pieces--amount' : ''}`}
                  inputMode={d.kind === 'total' ? 'decimal' : 'numeric'}
                  autoComplete="off"
                  value={raw}
                  placeholder="0"
                  aria-invalid={invalid === d.code ? true : undefined}
                  onChange={(e) => onChange({ ...values, [d.code]: e.target.value })}
                />
              </td>
              <td className="num cu-line" translate="no">
                {formatMoney(value, c.currency)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
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
  const [floatError, setFloatError] = useState<{ text: string; code: string | null } | null>(null);
  const float = useMutation({
    mutationFn: (body: { amount_minor?: number; denominations?: DenominationCounts }) => saveFloat(api, { currency: c.currency, ...body }),
    onSuccess: (r) => {
      setFloatError(null);
      refresh(r.cash_up);
    },
    onError: (err) => setFloatError({ text: errorText(err, 'amount_minor'), code: null }),
  });
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
  const [countError, setCountError] = useState<{ text: string; code: string | null } | null>(null);
  const read = readGrid(c, countGrid, locale);
  const saved = c.count ? JSON.stringify(c.count.denominations) : null;
  const dirty = !read.ok || JSON.stringify(read.counts) !== (saved ?? JSON.stringify({}));
  const count = useMutation({
    mutationFn: (denominations: DenominationCounts) => saveCount(api, { currency: c.currency, denominations }),
    onSuccess: (r) => {
      setCountError(null);
      refresh(r.cash_up);
    },
    onError: (err) => setCountError({ text: errorText(err, 'denominations'), code: null }),
  });
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
          {floatError && (
            <p id="cu-float-error" className="bo-field-error" role="alert">
              {floatError.text}
            </p>
          )}
          <div className="cu-actions">
            <button type="submit" className="bo-btn bo-btn--primary" disabled={float.isPending}>
              {t('cashUp.float.save')}
            </button>
            {c.float && <span className="bo-muted cu-small">{t('cashUp.float.saved', { amount: formatMoney(c.float.amount_minor, c.currency) })}</span>}
          </div>
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
          {countError && (
            <p className="bo-field-error" role="alert">
              {countError.text}
            </p>
          )}
          <div className="cu-actions">
            <button type="submit" className="bo-btn bo-btn--primary" disabled={count.isPending}>
              {t('cashUp.count.save')}
            </button>
            {c.count && !dirty && <span className="bo-muted cu-small">{t('cashUp.count.saved')}</span>}
          </div>
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

// ------------------------------------------------------------------ supervisor

function SupervisorCashUps() {
  const t = useT();
  const api = useApi();
  const [status, setStatus] = useState<CashUpStatus>('teller_signed');
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery(cashUpQueries.list(api, status));
  const detailRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (selected) detailRef.current?.scrollIntoView({ block: 'start' });
  }, [selected]);
  return (
    <div className="bo-page cu">
      <PageTitle title={t('cashUp.review.title')} subtitle={t('cashUp.review.subtitle')} />
      <div className="cd-no-print">
        <Tabs
          tabs={[
            { key: 'teller_signed', label: t('cashUp.review.waiting') },
            { key: 'supervisor_signed', label: t('cashUp.review.done') },
          ]}
          current={status === 'supervisor_signed' ? 'supervisor_signed' : 'teller_signed'}
          onChange={(k) => {
            setStatus(k);
            setSelected(null);
          }}
          label={t('cashUp.review.tabs')}
        >
        <Card className="bo-card--flush" testId="cash-up-queue">
          <QueryState
            query={list}
            isEmpty={(d) => d.cash_ups.length === 0}
            empty={<Empty title={status === 'teller_signed' ? t('cashUp.review.emptyWaiting') : t('cashUp.review.emptyDone')} />}
          >
            {(d) => (
              <DataTable
                caption={status === 'teller_signed' ? t('cashUp.review.waiting') : t('cashUp.review.done')}
                rows={d.cash_ups}
                rowKey={(r) => r.id ?? `${r.teller.id}-${r.date}-${r.currency}`}
                columns={[
                  { key: 'teller', header: t('cashUp.review.teller'), render: (r) => <span translate="no">{r.teller.full_name || r.teller.username}</span> },
                  { key: 'day', header: t('cashUp.review.day'), nowrap: true, render: (r) => <time dateTime={r.date}>{r.date}</time> },
                  { key: 'expected', header: t('cashUp.figures.expected'), align: 'right', nowrap: true, render: (r) => <span translate="no">{formatMoney(r.expected_minor, r.currency)}</span> },
                  {
                    key: 'difference',
                    header: t('cashUp.figures.difference'),
                    align: 'right',
                    nowrap: true,
                    render: (r) => (
                      <span translate="no" className={`cu-diff--${r.outcome ?? 'none'}`}>
                        {r.difference_minor === null ? '—' : signedMoney(r.difference_minor, r.currency)}
                      </span>
                    ),
                  },
                  {
                    key: 'open',
                    header: t('cashUp.review.action'),
                    align: 'right',
                    render: (r) => (
                      <button type="button" className="cd-link" onClick={() => setSelected(r.id)} aria-label={t('cashUp.review.openLabel', { name: r.teller.full_name || r.teller.username, day: r.date, currency: r.currency })}>
                        {t('cashUp.review.open')}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </QueryState>
        </Card>
        </Tabs>
      </div>
      <div ref={detailRef}>{selected && <SupervisorDetail key={selected} id={selected} onDone={() => setSelected(null)} />}</div>
    </div>
  );
}

function SupervisorDetail({ id, onDone }: { id: string; onDone: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const one = useQuery(cashUpQueries.one(api, id));
  const [note, setNote] = useState('');
  const signOff = useMutation({
    mutationFn: () => supervisorSignOff(api, id, note.trim()),
    onSuccess: (r) => {
      queryClient.setQueryData(cashUpQueries.one(api, id).queryKey, r.cash_up);
      void queryClient.invalidateQueries({ queryKey: cashUpQueries.all(api) });
    },
  });
  const noteId = useId();
  return (
    <QueryState query={one}>
      {(c) => (
        <div className="bo-grid-2 cu-grid">
          <Card
            title={t('cashUp.sheet.card')}
            testId="cash-up-card"
            actions={
              <>
                <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => print(id)}>
                  {t('cashUp.print')}
                </button>
                <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm cd-no-print" onClick={onDone}>
                  {t('cashUp.review.close')}
                </button>
              </>
            }
          >
            <CashUpSheet c={c} printable />
          </Card>
          <div className="cd-no-print">
            {c.status === 'teller_signed' ? (
              <Card title={t('cashUp.review.signTitle')} testId="cash-up-sign-off">
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    signOff.mutate();
                  }}
                >
                  <p>{t('cashUp.review.signBody', { outcome: outcomeWords(t, c) })}</p>
                  <label htmlFor={noteId} className="bo-label">
                    {t('cashUp.review.note')}
                  </label>
                  <textarea id={noteId} className="bo-input cu-note-input" rows={3} maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
                  {signOff.isError && (
                    <p className="bo-field-error" role="alert" data-testid="sign-off-error">
                      {errorText(signOff.error, 'note')}
                    </p>
                  )}
                  <div className="cu-actions">
                    <button type="submit" className="bo-btn bo-btn--primary" disabled={signOff.isPending}>
                      {t('cashUp.review.signButton')}
                    </button>
                  </div>
                </form>
              </Card>
            ) : c.status === 'supervisor_signed' ? (
              <Card title={t('cashUp.review.signedTitle')}>
                <p role="status">{t('cashUp.review.signedBody', { at: formatDateTime(c.supervisor_signed_at) })}</p>
              </Card>
            ) : null}
          </div>
        </div>
      )}
    </QueryState>
  );
}
