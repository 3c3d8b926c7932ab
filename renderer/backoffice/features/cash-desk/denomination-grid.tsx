import type { CashUp, DenominationCounts } from '../../../../shared/schemas/cash-up';
import { useT } from '../../../ui/i18n';
import { formatMoney, minorToDecimal, parseAmount, useAmountLocale } from '../common/format';
import { DenominationHead, denominationLabel } from './cash-up-sheet';

/** Inputs of a denomination grid: pieces per code (the `total` line holds a typed amount). */
export type GridValues = Record<string, string>;

/** A grid filled from stored counts: an empty line where nothing was counted. */
export function gridFrom(c: CashUp, counts: DenominationCounts | null | undefined): GridValues {
  const out: GridValues = {};
  for (const d of c.denominations) {
    const n = counts?.[d.code];
    out[d.code] = n === undefined ? '' : d.kind === 'total' ? minorToDecimal(n, c.currency) : String(n);
  }
  return out;
}

/** The grid's counts, or the first line that is not a whole number of pieces (or, for `total`, an amount). */
export function readGrid(c: CashUp, values: GridValues, locale: ReturnType<typeof useAmountLocale>): { ok: true; counts: DenominationCounts; minor: number } | { ok: false; code: string } {
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

/** The teller's grid of notes and coins (the float by piece, the count at close), with each line's value. */
export function DenominationGrid({ c, values, onChange, idPrefix, invalid }: { c: CashUp; values: GridValues; onChange: (v: GridValues) => void; idPrefix: string; invalid: string | null }) {
  const t = useT();
  const locale = useAmountLocale();
  return (
    <table className="cu-grid-table">
      <DenominationHead amount={c.denominations.length === 1} />
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
