import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { amountPlaceholder, formatAmountInput, formatDateTime, formatMoney, parseAmount, useAmountLocale } from '../common/format';
import { parsePercent } from '../../../ui/amount';
import { amountErrorText } from '../../../ui/amount-text';
import { defaultFeeRule } from '../../../../shared/fee-defaults';
import { RAILS, type Rail } from '../../../../shared/schemas/common';
import { Card, DataTable, InputField, Mono, SelectField, ShortId, StatusBadge } from '../../../ui/blocks';
import { type IntegrationView } from './admin.queries';
import { z } from 'zod';
import { CreatedApiKey, CreatedEndpoint } from '../../../../shared/schemas/admin';
import { EnabledEndpoint, RotatedSecret, WebhookEndpoint } from '../../../../shared/schemas/webhooks';

/** What rotate-secret, enable and disable answer; only a rotation carries a secret (shown once). */
const EndpointActionResult = z.union([RotatedSecret, EnabledEndpoint, WebhookEndpoint]);
import { ConfirmDialog } from '../common/confirm-dialog';
import { SecretOnce } from './copy-secret';
import { MomoCountriesField } from './momo-countries';
import { FormError, useAdminAction } from './use-admin-action';

export function IntegrationDetail({ i, onClose }: { i: IntegrationView; onClose: () => void }) {
  const t = useT();
  const api = useApi();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [rails, setRails] = useState<string[]>(i.allowed_rails);
  const [endpointUrl, setEndpointUrl] = useState('');
  const [keyName, setKeyName] = useState('');
  const [confirm, setConfirm] = useState<{ kind: 'revoke'; id: string; label: string } | { kind: 'disable'; id: string; url: string } | null>(null);
  const locale = useAmountLocale();
  // Fee rules are kept per currency: the table and the form show one currency's at a time.
  const feeCurrencies = [...new Set(i.fee_rules.map((f) => f.currency))];
  const [feeCurrency, setFeeCurrency] = useState(feeCurrencies[0] ?? 'GHS');
  const [otherCurrency, setOtherCurrency] = useState('');
  const currencyRules = i.fee_rules.filter((f) => f.currency === feeCurrency);
  const ruleForm = (rail: string, currency: string) => {
    const r = i.fee_rules.find((f) => f.currency === currency && f.rail === rail) ?? defaultFeeRule(currency, rail as Rail);
    const pct = new Intl.NumberFormat(locale, { minimumFractionDigits: 0, maximumFractionDigits: 2 });
    return {
      rail,
      percent: pct.format(r.percent_bps / 100),
      fixed: formatAmountInput(r.fixed_minor, currency, locale),
      cap: r.cap_minor === null ? '' : formatAmountInput(r.cap_minor, currency, locale),
      bearer: r.bearer as string,
    };
  };
  const [fee, setFee] = useState(() => ruleForm('cash', feeCurrency));
  const chooseCurrency = (c: string) => {
    setFeeCurrency(c);
    setFee(ruleForm(fee.rail, c));
  };
  const newKey = useAdminAction(
    () => api.post(`/admin/integrations/${i.integration_id}/api-keys`, { name: keyName.trim() }, CreatedApiKey),
    (r) => {
      setSecret({ label: r.name ? t('admin.secret.apiKeyNamed', { name: r.name, merchant: i.merchant_name, mode: i.mode }) : t('admin.secret.apiKeyUnnamed', { merchant: i.merchant_name, mode: i.mode }), value: r.api_key });
      setKeyName('');
      return null;
    },
  );
  const revoke = useAdminAction(
    (id: string) => api.post(`/admin/api-keys/${id}/revoke`),
    () => t('admin.keys.revoked'),
    () => setConfirm(null),
  );
  const saveRails = useAdminAction(() => api.post(`/admin/integrations/${i.integration_id}/rails`, { allowed_rails: rails }), () => t('admin.rails.saved'));
  const addEndpoint = useAdminAction(
    () => api.post(`/admin/integrations/${i.integration_id}/webhook-endpoints`, { url: endpointUrl.trim() }, CreatedEndpoint),
    (r) => {
      setSecret({ label: t('admin.secret.webhookFor', { url: endpointUrl.trim() }), value: r.secret });
      setEndpointUrl('');
      return null;
    },
  );
  const endpointAction = useAdminAction(
    ({ id, action }: { id: string; action: 'rotate-secret' | 'disable' | 'enable' }) =>
      api.post(
        `/webhooks/endpoints/${id}/${action}`,
        action === 'disable' ? { reason: 'disabled by an admin' } : action === 'rotate-secret' ? { overlap_hours: 24 } : {},
        EndpointActionResult,
      ),
    (r, { id }) => {
      if ('secret' in r) {
        const url = i.webhook_endpoints.find((e) => e.id === id)?.url ?? id;
        setSecret({ label: t('admin.secret.rotated', { url }), value: r.secret });
        return null;
      }
      return t('admin.endpoints.updated');
    },
    () => setConfirm(null),
  );
  const saveFee = useAdminAction(
    () => {
      const percent = parsePercent(fee.percent, locale);
      if (!percent.ok) return Promise.reject(new FormError(t('admin.fees.percentError', { message: amountErrorText(t, percent) })));
      if (percent.minor > 10_000) return Promise.reject(new FormError(t('admin.fees.percentMax')));
      const fixed = fee.fixed.trim() ? parseAmount(fee.fixed, feeCurrency, locale) : ({ ok: true, minor: 0 } as const);
      if (!fixed.ok) return Promise.reject(new FormError(t('admin.fees.fixedError', { message: amountErrorText(t, fixed) })));
      const cap = fee.cap.trim() ? parseAmount(fee.cap, feeCurrency, locale) : null;
      if (cap && !cap.ok) return Promise.reject(new FormError(t('admin.fees.capError', { message: amountErrorText(t, cap) })));
      return api.post(`/admin/integrations/${i.integration_id}/fee-rules`, {
        rail: fee.rail,
        currency: feeCurrency,
        percent_bps: percent.minor,
        fixed_minor: fixed.minor,
        cap_minor: cap ? cap.minor : null,
        bearer: fee.bearer,
      });
    },
    () => t('admin.fees.saved', { rail: labelsWith(t).rail(fee.rail), currency: feeCurrency }),
  );

  return (
    <Card
      title={
        <span className="bo-title-with-badge bo-title-with-badge--sm">
          <span translate="no">{i.merchant_name}</span> <StatusBadge status={i.disabled_at ? 'disabled' : 'active'} label={t('admin.integrations.mode', { mode: i.mode })} />
        </span>
      }
      actions={
        <>
          <ShortId value={i.integration_id} />
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
            {t('admin.integrations.collapse')}
          </button>
        </>
      }
      testId="integration-card"
    >
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {[newKey.note, revoke.note, saveRails.note, addEndpoint.note, endpointAction.note, saveFee.note]}

      <div className="bo-subhead">{t('admin.keys.title')}</div>
      <DataTable
        rows={i.api_keys}
        rowKey={(k) => k.id}
        pageSize={5}
        defaultSort={{ key: 'created', dir: 'desc' }}
        columns={[
          { key: 'name', header: t('admin.name'), sortValue: (k) => k.name ?? '', render: (k) => (k.name ? <span translate="no">{k.name}</span> : <span className="bo-muted">{t('admin.keys.unnamed')}</span>) },
          { key: 'prefix', header: t('admin.keys.key'), sortValue: (k) => k.prefix, render: (k) => <Mono>{`${k.prefix}…`}</Mono> },
          { key: 'created', header: t('admin.created'), nowrap: true, sortValue: (k) => k.created_at, render: (k) => <time dateTime={k.created_at}>{formatDateTime(k.created_at)}</time> },
          { key: 'used', header: t('admin.keys.lastUsed'), nowrap: true, sortValue: (k) => k.last_used_at ?? '', render: (k) => (k.last_used_at ? <time dateTime={k.last_used_at}>{formatDateTime(k.last_used_at)}</time> : <span className="bo-muted">{t('admin.keys.never')}</span>) },
          { key: 'state', header: t('admin.state'), sortValue: (k) => (k.revoked_at ? 'revoked' : 'active'), render: (k) => <StatusBadge status={k.revoked_at ? 'revoked' : 'active'} label={k.revoked_at ? t('admin.stateRevoked') : t('admin.stateActive')} /> },
          {
            key: 'act',
            header: t('admin.actions'),
            hideHeader: true,
            align: 'right',
            render: (k) =>
              k.revoked_at ? null : (
                <button
                  type="button"
                  className="bo-btn bo-btn--danger bo-btn--sm"
                  disabled={revoke.pending}
                  onClick={() => setConfirm({ kind: 'revoke', id: k.id, label: `${k.name ? `“${k.name}” ` : ''}${k.prefix}…` })}
                  aria-label={t('admin.keys.revokeNamed', { name: k.name ?? k.prefix })}
                >
                  {t('admin.keys.revoke')}
                </button>
              ),
          },
        ]}
      />
      <form
        className="bo-inline-form bo-mt"
        onSubmit={(e) => {
          e.preventDefault();
          newKey.mutate(undefined);
        }}
      >
        <InputField label={t('admin.keys.name')} value={keyName} onChange={setKeyName} placeholder={t('admin.keys.namePlaceholder')} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={newKey.pending}>
          {t('admin.keys.create')}
        </button>
      </form>

      <div className="bo-subhead">{t('admin.endpoints.title')}</div>
      {i.webhook_endpoints.length > 0 && (
        <DataTable
          rows={i.webhook_endpoints}
          rowKey={(e) => e.id}
          pageSize={5}
          columns={[
            { key: 'url', header: t('admin.endpoints.url'), sortValue: (e) => e.url, render: (e) => <Mono>{e.url}</Mono> },
            { key: 'state', header: t('admin.state'), sortValue: (e) => e.status, render: (e) => <StatusBadge status={e.status} label={e.status === 'active' ? t('admin.stateActive') : t('admin.stateDisabled')} /> },
            {
              key: 'act',
              header: t('admin.actions'),
              hideHeader: true,
              align: 'right',
              render: (e) => (
                <div className="bo-inline-form bo-inline-form--end">
                  <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={endpointAction.pending} onClick={() => endpointAction.mutate({ id: e.id, action: 'rotate-secret' })}>
                    {t('admin.endpoints.rotate')}
                  </button>
                  <button
                    type="button"
                    className={`bo-btn bo-btn--sm ${e.status === 'active' ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
                    disabled={endpointAction.pending}
                    onClick={() => (e.status === 'active' ? setConfirm({ kind: 'disable', id: e.id, url: e.url }) : endpointAction.mutate({ id: e.id, action: 'enable' }))}
                    aria-label={e.status === 'active' ? t('admin.endpoints.disableNamed', { url: e.url }) : t('admin.endpoints.enableNamed', { url: e.url })}
                  >
                    {e.status === 'active' ? t('admin.disable') : t('admin.enable')}
                  </button>
                </div>
              ),
            },
          ]}
        />
      )}
      <form
        className="bo-inline-form bo-mt"
        onSubmit={(e) => {
          e.preventDefault();
          if (endpointUrl.trim()) addEndpoint.mutate(undefined);
        }}
      >
        <input className="bo-input bo-grow" aria-label={t('admin.endpoints.newUrl')} placeholder={t('admin.endpoints.urlPlaceholder')} value={endpointUrl} onChange={(e) => setEndpointUrl(e.target.value)} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={addEndpoint.pending || !endpointUrl.trim()}>
          {t('admin.endpoints.add')}
        </button>
      </form>

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'revoke' ? t('admin.keys.confirmTitle', { label: confirm.label }) : t('admin.endpoints.confirmTitle')}
        confirmLabel={confirm?.kind === 'revoke' ? t('admin.keys.confirm') : t('admin.endpoints.confirm')}
        tone="danger"
        busy={revoke.pending || endpointAction.pending}
        onConfirm={() => {
          if (confirm?.kind === 'revoke') revoke.mutate(confirm.id);
          else if (confirm) endpointAction.mutate({ id: confirm.id, action: 'disable' });
        }}
        onCancel={() => setConfirm(null)}
      >
        {confirm?.kind === 'revoke' ? (
          <p>{t('admin.keys.confirmBody', { merchant: <span translate="no">{i.merchant_name}</span> })}</p>
        ) : (
          <p>{t('admin.endpoints.confirmBody', { url: <span translate="no">{confirm?.kind === 'disable' ? confirm.url : ''}</span> })}</p>
        )}
      </ConfirmDialog>

      <div className="bo-subhead">{t('admin.rails.title')}</div>
      <div className="bo-checks">
        {RAILS.map((r) => (
          <label key={r}>
            <input type="checkbox" checked={rails.includes(r)} onChange={(e) => setRails((cur) => (e.target.checked ? [...cur, r] : cur.filter((x) => x !== r)))} />
            {labelsWith(t).rail(r)}
          </label>
        ))}
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={saveRails.pending || rails.length === 0} onClick={() => saveRails.mutate(undefined)}>
          {t('admin.rails.save')}
        </button>
      </div>

      <MomoCountriesField i={i} />

      <div className="bo-subhead">{t('admin.fees.title')}</div>
      <p className="bo-muted">{t('admin.fees.note')}</p>
      <div className="bo-inline-form">
        <SelectField label={t('admin.fees.currency')} value={feeCurrency} onChange={chooseCurrency} options={[...new Set([...feeCurrencies, feeCurrency])].map((c) => ({ value: c, label: c }))} />
        <InputField label={t('admin.fees.otherCurrency')} value={otherCurrency} onChange={(v) => setOtherCurrency(v.toUpperCase().slice(0, 3))} placeholder="USD" />
        <button
          type="button"
          className="bo-btn bo-btn--secondary bo-btn--sm bo-export-btn"
          disabled={!/^[A-Z]{3}$/.test(otherCurrency)}
          onClick={() => {
            chooseCurrency(otherCurrency);
            setOtherCurrency('');
          }}
        >
          {t('admin.fees.showRules')}
        </button>
      </div>
      <DataTable
        rows={currencyRules.length ? currencyRules : RAILS.map((rail) => ({ rail: rail as Rail, currency: feeCurrency, ...defaultFeeRule(feeCurrency, rail as Rail), default: true }))}
        rowKey={(f) => `${f.currency}-${f.rail}`}
        columns={[
          { key: 'rail', header: t('admin.fees.method'), sortValue: (f) => labelsWith(t).rail(f.rail), render: (f) => labelsWith(t).rail(f.rail) },
          { key: 'pct', header: t('admin.fees.percent'), align: 'right', sortValue: (f) => f.percent_bps, render: (f) => `${new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(f.percent_bps / 100)} %` },
          { key: 'fixed', header: t('admin.fees.fixed'), align: 'right', sortValue: (f) => f.fixed_minor, render: (f) => formatMoney(f.fixed_minor, f.currency) },
          { key: 'cap', header: t('admin.fees.cap'), align: 'right', sortValue: (f) => f.cap_minor, render: (f) => (f.cap_minor === null ? '—' : formatMoney(f.cap_minor, f.currency)) },
          { key: 'bearer', header: t('admin.fees.paidBy'), sortValue: (f) => f.bearer, render: (f) => (f.bearer === 'payer' ? t('admin.fees.payerSurcharge') : t('admin.fees.merchant')) },
          { key: 'src', header: t('admin.fees.source'), hideHeader: true, render: (f) => (f.default ? <span className="bo-muted">{t('admin.fees.default')}</span> : <StatusBadge status="active" label={t('admin.fees.custom')} />) },
        ]}
      />
      <form
        className="bo-inline-form bo-mt"
        onSubmit={(e) => {
          e.preventDefault();
          saveFee.mutate(undefined);
        }}
      >
        <SelectField label={t('admin.fees.method')} value={fee.rail} onChange={(v) => setFee(ruleForm(v, feeCurrency))} options={RAILS.map((r) => ({ value: r, label: labelsWith(t).rail(r) }))} />
        <InputField label={t('admin.fees.percent')} value={fee.percent} onChange={(v) => setFee({ ...fee, percent: v })} inputMode="decimal" />
        <InputField label={t('admin.fees.fixedIn', { currency: feeCurrency })} value={fee.fixed} onChange={(v) => setFee({ ...fee, fixed: v })} placeholder={amountPlaceholder(feeCurrency, locale)} inputMode="decimal" />
        <InputField label={t('admin.fees.capIn', { currency: feeCurrency })} value={fee.cap} onChange={(v) => setFee({ ...fee, cap: v })} placeholder={t('admin.fees.capNone')} inputMode="decimal" />
        <SelectField label={t('admin.fees.paidBy')} value={fee.bearer} onChange={(v) => setFee({ ...fee, bearer: v })} options={[{ value: 'payer', label: t('admin.fees.payer') }, { value: 'merchant', label: t('admin.fees.merchant') }]} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={saveFee.pending}>
          {t('admin.fees.save')}
        </button>
      </form>
    </Card>
  );
}

