import { useId, useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useApi } from '../common/api';
import { useT } from '../../../ui/i18n';
import { MOMO_COUNTRIES } from '../../../../shared/countries';
import type { IntegrationView } from './admin.queries';
import { useAdminAction } from './use-admin-action';

/**
 * The Mobile Money countries an integration serves. A session's payer picks from the countries of
 * its currency that the integration serves; "every country" (the default) follows the currency.
 */
/** A country's name in the language the staff member reads (`Côte d’Ivoire`, `Sénégal`), from Intl. */
function useRegionName(): (code: string, fallback: string) => string {
  const { locale } = useIntl();
  return useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames([locale], { type: 'region' });
    } catch {
      names = null;
    }
    return (code: string, fallback: string) => names?.of(code) ?? fallback;
  }, [locale]);
}

export function MomoCountriesField({ i }: { i: IntegrationView }) {
  const api = useApi();
  const t = useT();
  const regionName = useRegionName();
  const id = useId();
  const [every, setEvery] = useState(i.momo_countries === null);
  const [picked, setPicked] = useState<string[]>(i.momo_countries ?? MOMO_COUNTRIES.map((c) => c.code));
  const save = useAdminAction(
    () => api.post(`/admin/integrations/${i.integration_id}/momo-countries`, { momo_countries: every ? null : picked }),
    () => t('momoCountries.saved'),
  );
  const toggle = (code: string, on: boolean) => setPicked((cur) => (on ? [...cur, code] : cur.filter((c) => c !== code)));
  return (
    <>
      <div className="bo-subhead" id={`${id}-head`}>
        {t('momoCountries.title')}
      </div>
      <p className="bo-muted">{t('momoCountries.hint')}</p>
      <fieldset className="bo-countries" aria-labelledby={`${id}-head`} data-testid="momo-countries">
        <label>
          <input type="radio" name={`${id}-mode`} checked={every} onChange={() => setEvery(true)} />
          {t('momoCountries.every')}
        </label>
        <label>
          <input type="radio" name={`${id}-mode`} checked={!every} onChange={() => setEvery(false)} />
          {t('momoCountries.only')}
        </label>
        <div className="bo-checks">
          {MOMO_COUNTRIES.map((c) => (
            <label key={c.code}>
              <input type="checkbox" disabled={every} checked={every || picked.includes(c.code)} onChange={(e) => toggle(c.code, e.target.checked)} />
              <span translate="no" data-country={c.code}>
                {regionName(c.code, c.name)} <span className="bo-muted">({c.currency})</span>
              </span>
            </label>
          ))}
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={save.pending || (!every && picked.length === 0)} onClick={() => save.mutate(undefined)}>
            {t('momoCountries.save')}
          </button>
        </div>
      </fieldset>
      {save.note}
    </>
  );
}
