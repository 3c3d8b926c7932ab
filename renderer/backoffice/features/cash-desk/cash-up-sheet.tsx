import type { CashUp } from '../../../../shared/schemas/cash-up';
import { useT, type T } from '../../../ui/i18n';
import { formatDateTime, formatDay, formatMoney, formatTimeIn } from '../common/format';
import { StatusBadge } from '../../../ui/blocks';
import { printPart, SignatureLines } from './deposit-receipt';

/** Prints the page: its one printable part is the cash-up sheet (Ctrl+P prints the same). */
export const printCashUp = (id: string) => void printPart('receipt', `cash-up-${id}`.replace(/[^A-Za-z0-9_-]/g, '-'));

/**
 * A member of staff by full name and username ("Efua Mensah (efua.m)"): two tellers of the same
 * name stay apart. The username alone when no full name was given.
 */
export function staffName(u: { username: string; full_name?: string | null }): string {
  return u.full_name ? `${u.full_name} (${u.username})` : u.username;
}

/** A denomination as a teller names it: "GHS 200.00 note", "GHS 0.50 coin", or the total line. */
export function denominationLabel(t: T, d: CashUp['denominations'][number], currency: string): string {
  if (d.kind === 'total') return t('cashUp.line.total');
  return t(d.kind === 'note' ? 'cashUp.line.note' : 'cashUp.line.coin', { value: formatMoney(d.value_minor, currency) });
}

/** The head of a count table: note or coin, pieces (`amount`: the amount, for a currency counted as one total), value. */
export function DenominationHead({ amount = false }: { amount?: boolean }) {
  const t = useT();
  return (
    <thead>
      <tr>
        <th scope="col">{t('cashUp.count.denomination')}</th>
        <th scope="col" className="num">
          {amount ? t('cashUp.count.amount') : t('cashUp.count.pieces')}
        </th>
        <th scope="col" className="num">
          {t('cashUp.count.value')}
        </th>
      </tr>
    </thead>
  );
}

/** counted − expected, with its sign: "+GHS 20.00", "−GHS 1.50", "GHS 0.00". */
export function signedMoney(minor: number, currency: string): string {
  if (minor === 0) return formatMoney(0, currency);
  return `${minor > 0 ? '+' : '−'}${formatMoney(Math.abs(minor), currency)}`;
}

/** The difference in words: balanced, over by …, short by …. */
export function outcomeWords(t: T, c: Pick<CashUp, 'outcome' | 'difference_minor' | 'currency'>): string {
  if (c.outcome === null || c.difference_minor === null) return t('cashUp.outcome.none');
  const amount = formatMoney(Math.abs(c.difference_minor), c.currency);
  return t(`cashUp.outcome.${c.outcome}`, { amount });
}

/**
 * The cash-up as a sheet, on screen and on paper (A4 or an 80 mm roll: cash-up.css): who, where
 * and which day, the figures from float to difference, the count by denomination, the day's
 * deposits, and both sign-offs with lines to sign on paper.
 */
export function CashUpSheet({ c, printable }: { c: CashUp; printable: boolean }) {
  const t = useT();
  const money = (minor: number) => formatMoney(minor, c.currency);
  const statusLabel = t(`cashUp.status.${c.status}`);
  const countedLines = c.count ? c.denominations.filter((d) => (c.count!.denominations[d.code] ?? 0) > 0) : [];
  return (
    <div className={`cu-sheet${printable ? ' cd-printable' : ''}`} data-testid="cash-up-sheet">
      <div className="cu-sheet__head">
        <div>
          <h3 className="cu-sheet__title">{t('cashUp.sheet.title', { currency: c.currency })}</h3>
          <div>
            <span translate="no">{staffName(c.teller)}</span>
            {c.branch_name ? (
              <>
                {' · '}
                <span translate="no">{c.branch_name}</span>
              </>
            ) : null}
          </div>
          <div className="bo-muted">
            <time dateTime={c.date}>{formatDay(c.date)}</time> <span translate="no">({c.time_zone})</span>
          </div>
        </div>
        <StatusBadge status={c.status === 'supervisor_signed' ? 'approved' : c.status === 'teller_signed' ? 'under_review' : 'open'} label={statusLabel} />
      </div>

      <table className="cu-figures" data-testid="cash-up-figures">
        <caption className="bo-visually-hidden">{t('cashUp.figures.caption')}</caption>
        <tbody>
          <tr>
            <th scope="row">{t('cashUp.figures.float')}</th>
            <td className="num" translate="no" data-testid="cu-float">
              {c.float ? money(c.float.amount_minor) : '—'}
            </td>
          </tr>
          <tr>
            <th scope="row">{t('cashUp.figures.approved')}</th>
            <td className="num" translate="no">
              {money(c.approved_minor)}
            </td>
          </tr>
          <tr>
            <th scope="row">{t('cashUp.figures.waiting')}</th>
            <td className="num" translate="no">
              {money(c.under_review_minor)}
            </td>
          </tr>
          <tr className="cu-figures__total">
            <th scope="row">{t('cashUp.figures.expected')}</th>
            <td className="num" translate="no" data-testid="cu-expected">
              {money(c.expected_minor)}
            </td>
          </tr>
          <tr>
            <th scope="row">{t('cashUp.figures.counted')}</th>
            <td className="num" translate="no" data-testid="cu-counted">
              {c.count ? money(c.count.counted_minor) : '—'}
            </td>
          </tr>
          <tr className={`cu-figures__total cu-diff cu-diff--${c.outcome ?? 'none'}`}>
            <th scope="row">{t('cashUp.figures.difference')}</th>
            <td className="num" translate="no" data-testid="cu-difference">
              {c.difference_minor === null ? '—' : signedMoney(c.difference_minor, c.currency)}
            </td>
          </tr>
        </tbody>
      </table>
      <p className={`cu-outcome cu-diff--${c.outcome ?? 'none'}`} data-testid="cu-outcome">
        {outcomeWords(t, c)}
      </p>
      {c.rejected_minor > 0 && <p className="bo-muted cu-small">{t('cashUp.figures.rejected', { amount: money(c.rejected_minor) })}</p>}

      {countedLines.length > 0 && (
        <table className="cu-table">
          <caption className="cu-table__caption">{t('cashUp.count.caption')}</caption>
          <DenominationHead />
          <tbody>
            {countedLines.map((d) => {
              const n = c.count!.denominations[d.code] ?? 0;
              return (
                <tr key={d.code}>
                  <td>{denominationLabel(t, d, c.currency)}</td>
                  <td className="num" translate="no">
                    {d.kind === 'total' ? '—' : n}
                  </td>
                  <td className="num" translate="no">
                    {money(n * d.value_minor)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}

      <table className="cu-table" data-testid="cash-up-deposits">
        <caption className="cu-table__caption">{t('cashUp.deposits.caption', { count: c.deposits.length })}</caption>
        {c.deposits.length > 0 && (
          <>
            <thead>
              <tr>
                <th scope="col">{t('cashUp.deposits.receipt')}</th>
                <th scope="col">{t('cashUp.deposits.time')}</th>
                <th scope="col" className="num">
                  {t('cashUp.deposits.amount')}
                </th>
                <th scope="col">{t('cashUp.deposits.state')}</th>
              </tr>
            </thead>
            <tbody>
              {c.deposits.map((d) => (
                <tr key={d.id}>
                  <td translate="no" className="cu-mono">
                    {d.receipt_no ?? d.slip_reference}
                  </td>
                  <td>
                    <time dateTime={d.created_at}>{formatTimeIn(d.created_at, c.time_zone)}</time>
                  </td>
                  <td className="num" translate="no">
                    {money(d.amount_minor)}
                  </td>
                  <td>{t(`cashUp.deposit.${d.status}`)}</td>
                </tr>
              ))}
            </tbody>
          </>
        )}
      </table>

      <div className="cu-signoffs">
        <p data-testid="cu-teller-signed">
          {c.teller_signed_at
            ? t('cashUp.signed.teller', { name: c.teller.full_name || c.teller.username, at: formatDateTime(c.teller_signed_at) })
            : t('cashUp.signed.tellerNot')}
        </p>
        <p data-testid="cu-supervisor-signed">
          {c.supervisor && c.supervisor_signed_at
            ? t('cashUp.signed.supervisor', { name: c.supervisor.full_name || c.supervisor.username, at: formatDateTime(c.supervisor_signed_at) })
            : t('cashUp.signed.supervisorNot')}
        </p>
        {c.supervisor_note && (
          <p className="cu-note">
            {t('cashUp.signed.note')} <q translate="no">{c.supervisor_note}</q>
          </p>
        )}
      </div>
      <SignatureLines labels={[t('cashUp.print.teller'), t('cashUp.print.supervisor')]} printOnly />
      <p className="cd-sign--print-only cu-small">{t('cashUp.print.generated', { at: formatDateTime(c.generated_at) })}</p>
    </div>
  );
}
