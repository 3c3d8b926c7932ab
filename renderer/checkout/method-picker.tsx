import type { PublicCheckoutQuote } from '../../shared/schemas/checkout';
import type { Rail } from '../../shared/schemas/common';
import { useT } from '../ui/i18n';
import { RAIL_HINT_IDS, formatMoney, momoHint, railLabel } from './format';
import { RailIcon } from './icons';

/** Rail order on the page: the usual way to pay in Ghana first. */
const ORDER: Rail[] = ['momo', 'card', 'bank_transfer', 'cash'];

export interface RailPrice {
  rail: Rail;
  feeMinor: number;
  totalMinor: number;
  payerPays: boolean;
}

export function priceOf(quote: PublicCheckoutQuote, rail: Rail): RailPrice {
  const s = quote.surcharges[rail];
  if (!s) return { rail, feeMinor: 0, totalMinor: quote.base_minor, payerPays: false };
  const payerPays = s.bearer === 'payer' && s.total_minor > quote.base_minor;
  return { rail, feeMinor: payerPays ? s.total_minor - quote.base_minor : 0, totalMinor: s.total_minor, payerPays };
}

/**
 * The payer picks how to pay. Each option states its fee and the total it will cost, straight from
 * the quote: a payer-borne fee raises the total, a merchant-borne one is "no fee".
 */
export function MethodPicker({
  rails,
  momoCountries,
  quote,
  onChoose,
}: {
  rails: Rail[];
  /** The session's Mobile Money countries: the option names their networks. */
  momoCountries: readonly string[];
  quote: PublicCheckoutQuote;
  onChoose: (rail: Rail) => void;
}) {
  const t = useT();
  const available = ORDER.filter((r) => rails.includes(r) && quote.allowed_rails.includes(r));
  if (available.length === 0) {
    return (
      <div className="notice notice-warning" role="alert">
        {t('checkout.noMethods')}
      </div>
    );
  }
  return (
    <ul className="methods" aria-label={t('checkout.paymentMethods')}>
      {available.map((rail) => {
        const price = priceOf(quote, rail);
        const label = railLabel(t, rail);
        return (
          <li key={rail}>
            <button
              type="button"
              className="method"
              data-rail={rail}
              onClick={() => onChoose(rail)}
              aria-describedby={`method-${rail}-price`}
            >
              <span className={`method-icon rail-${rail}`}>
                <RailIcon rail={rail} />
              </span>
              <span className="method-text">
                <span className="method-name">{label}</span>
                <span className="method-hint">{rail === 'momo' ? momoHint(t, momoCountries) : t(RAIL_HINT_IDS[rail])}</span>
              </span>
              <span className="method-price" id={`method-${rail}-price`}>
                <span className="method-total">{formatMoney(price.totalMinor, quote.currency)}</span>
                <span className={`method-fee${price.payerPays ? '' : ' is-free'}`}>
                  {price.payerPays ? t('checkout.feeIncluded', { fee: formatMoney(price.feeMinor, quote.currency) }) : t('checkout.noFee')}
                </span>
              </span>
              <svg className="method-chevron" aria-hidden="true" viewBox="0 0 16 16" width="16" height="16">
                <path d="M6 3.5L10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
              </svg>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
