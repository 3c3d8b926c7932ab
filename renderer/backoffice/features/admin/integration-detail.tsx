import { useState } from 'react';
import { useApi } from '../common/api';
import { amountPlaceholder, formatAmountInput, formatDateTime, formatMoney, parseAmount, railLabel, useAmountLocale } from '../common/format';
import { parsePercent } from '../../../ui/amount';
import { defaultFeeRule } from '../../../../shared/fee-defaults';
import type { Rail } from '../../../../shared/schemas/common';
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
import { FormError, RAILS, useAdminAction } from './use-admin-action';

export function IntegrationDetail({ i, onClose }: { i: IntegrationView; onClose: () => void }) {
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
      setSecret({ label: `API key ${r.name ? `“${r.name}” ` : ''}for ${i.merchant_name} (${i.mode} mode)`, value: r.api_key });
      setKeyName('');
      return null;
    },
  );
  const revoke = useAdminAction(
    (id: string) => api.post(`/admin/api-keys/${id}/revoke`),
    () => 'Key revoked: requests with it now answer 401.',
    () => setConfirm(null),
  );
  const saveRails = useAdminAction(() => api.post(`/admin/integrations/${i.integration_id}/rails`, { allowed_rails: rails }), () => 'Payment methods saved.');
  const addEndpoint = useAdminAction(
    () => api.post(`/admin/integrations/${i.integration_id}/webhook-endpoints`, { url: endpointUrl.trim() }, CreatedEndpoint),
    (r) => {
      setSecret({ label: `Webhook signing secret for ${endpointUrl.trim()}`, value: r.secret });
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
        const url = i.webhook_endpoints.find((e) => e.id === id)?.url ?? 'the endpoint';
        setSecret({ label: `New signing secret for ${url} (the old one keeps signing for 24 h)`, value: r.secret });
        return null;
      }
      return 'Endpoint updated.';
    },
    () => setConfirm(null),
  );
  const saveFee = useAdminAction(
    () => {
      const percent = parsePercent(fee.percent, locale);
      if (!percent.ok) return Promise.reject(new FormError(`Percent: ${percent.message}`));
      if (percent.minor > 10_000) return Promise.reject(new FormError('Percent: at most 100.'));
      const fixed = fee.fixed.trim() ? parseAmount(fee.fixed, feeCurrency, locale) : ({ ok: true, minor: 0 } as const);
      if (!fixed.ok) return Promise.reject(new FormError(`Fixed: ${fixed.message}`));
      const cap = fee.cap.trim() ? parseAmount(fee.cap, feeCurrency, locale) : null;
      if (cap && !cap.ok) return Promise.reject(new FormError(`Cap: ${cap.message}`));
      return api.post(`/admin/integrations/${i.integration_id}/fee-rules`, {
        rail: fee.rail,
        currency: feeCurrency,
        percent_bps: percent.minor,
        fixed_minor: fixed.minor,
        cap_minor: cap ? cap.minor : null,
        bearer: fee.bearer,
      });
    },
    () => `Fee rule for ${railLabel(fee.rail)} in ${feeCurrency} saved.`,
  );

  return (
    <Card
      title={
        <span className="bo-title-with-badge bo-title-with-badge--sm">
          {i.merchant_name} <StatusBadge status={i.disabled_at ? 'disabled' : 'active'} label={`${i.mode} mode`} />
        </span>
      }
      actions={
        <>
          <ShortId value={i.integration_id} />
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
            Collapse
          </button>
        </>
      }
      testId="integration-card"
    >
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {[newKey.note, revoke.note, saveRails.note, addEndpoint.note, endpointAction.note, saveFee.note]}

      <div className="bo-subhead">API keys</div>
      <DataTable
        rows={i.api_keys}
        rowKey={(k) => k.id}
        pageSize={5}
        defaultSort={{ key: 'created', dir: 'desc' }}
        columns={[
          { key: 'name', header: 'Name', sortValue: (k) => k.name ?? '', render: (k) => k.name ?? <span className="bo-muted">Unnamed</span> },
          { key: 'prefix', header: 'Key', sortValue: (k) => k.prefix, render: (k) => <Mono>{`${k.prefix}…`}</Mono> },
          { key: 'created', header: 'Created', nowrap: true, sortValue: (k) => k.created_at, render: (k) => formatDateTime(k.created_at) },
          { key: 'used', header: 'Last used', nowrap: true, sortValue: (k) => k.last_used_at ?? '', render: (k) => (k.last_used_at ? formatDateTime(k.last_used_at) : <span className="bo-muted">Never</span>) },
          { key: 'state', header: 'State', sortValue: (k) => (k.revoked_at ? 'revoked' : 'active'), render: (k) => <StatusBadge status={k.revoked_at ? 'revoked' : 'active'} /> },
          {
            key: 'act',
            header: 'Actions',
            hideHeader: true,
            align: 'right',
            render: (k) =>
              k.revoked_at ? null : (
                <button
                  type="button"
                  className="bo-btn bo-btn--danger bo-btn--sm"
                  disabled={revoke.pending}
                  onClick={() => setConfirm({ kind: 'revoke', id: k.id, label: `${k.name ? `“${k.name}” ` : ''}${k.prefix}…` })}
                  aria-label={`Revoke key ${k.name ?? k.prefix}`}
                >
                  Revoke
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
        <InputField label="Key name (where it is used)" value={keyName} onChange={setKeyName} placeholder="Shop server" />
        <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={newKey.pending}>
          Create API key
        </button>
      </form>

      <div className="bo-subhead">Webhook endpoints</div>
      {i.webhook_endpoints.length > 0 && (
        <DataTable
          rows={i.webhook_endpoints}
          rowKey={(e) => e.id}
          pageSize={5}
          columns={[
            { key: 'url', header: 'URL', sortValue: (e) => e.url, render: (e) => <Mono>{e.url}</Mono> },
            { key: 'state', header: 'State', sortValue: (e) => e.status, render: (e) => <StatusBadge status={e.status} /> },
            {
              key: 'act',
              header: 'Actions',
              hideHeader: true,
              align: 'right',
              render: (e) => (
                <div className="bo-inline-form bo-inline-form--end">
                  <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={endpointAction.pending} onClick={() => endpointAction.mutate({ id: e.id, action: 'rotate-secret' })}>
                    Rotate secret
                  </button>
                  <button
                    type="button"
                    className={`bo-btn bo-btn--sm ${e.status === 'active' ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
                    disabled={endpointAction.pending}
                    onClick={() => (e.status === 'active' ? setConfirm({ kind: 'disable', id: e.id, url: e.url }) : endpointAction.mutate({ id: e.id, action: 'enable' }))}
                    aria-label={`${e.status === 'active' ? 'Disable' : 'Enable'} endpoint ${e.url}`}
                  >
                    {e.status === 'active' ? 'Disable' : 'Enable'}
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
        <input className="bo-input bo-grow" aria-label="New endpoint URL" placeholder="https://merchant.example/paydesk-webhooks" value={endpointUrl} onChange={(e) => setEndpointUrl(e.target.value)} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={addEndpoint.pending || !endpointUrl.trim()}>
          Add endpoint
        </button>
      </form>

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'revoke' ? `Revoke API key ${confirm.label}?` : 'Disable this webhook endpoint?'}
        confirmLabel={confirm?.kind === 'revoke' ? 'Revoke key' : 'Disable endpoint'}
        tone="danger"
        busy={revoke.pending || endpointAction.pending}
        onConfirm={() => {
          if (confirm?.kind === 'revoke') revoke.mutate(confirm.id);
          else if (confirm) endpointAction.mutate({ id: confirm.id, action: 'disable' });
        }}
        onCancel={() => setConfirm(null)}
      >
        {confirm?.kind === 'revoke' ? (
          <p>Requests with this key will get 401 at once. {i.merchant_name} must switch to another key first; a revoked key cannot be restored.</p>
        ) : (
          <p>{confirm?.kind === 'disable' ? confirm.url : ''} receives no more events from now on. Deliveries wait, and are sent when you enable it again.</p>
        )}
      </ConfirmDialog>

      <div className="bo-subhead">Payment methods</div>
      <div className="bo-checks">
        {RAILS.map((r) => (
          <label key={r}>
            <input type="checkbox" checked={rails.includes(r)} onChange={(e) => setRails((cur) => (e.target.checked ? [...cur, r] : cur.filter((x) => x !== r)))} />
            {railLabel(r)}
          </label>
        ))}
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={saveRails.pending || rails.length === 0} onClick={() => saveRails.mutate(undefined)}>
          Save methods
        </button>
      </div>

      <MomoCountriesField i={i} />

      <div className="bo-subhead">Fee rules</div>
      <p className="bo-muted">
        Each currency has its own rules: a session is quoted only with the rules of its currency, and fixed parts and caps are amounts in it. A currency without shipped defaults charges
        each method&apos;s percentage alone until you set its rules.
      </p>
      <div className="bo-inline-form">
        <SelectField label="Currency" value={feeCurrency} onChange={chooseCurrency} options={[...new Set([...feeCurrencies, feeCurrency])].map((c) => ({ value: c, label: c }))} />
        <InputField label="Other currency (ISO code)" value={otherCurrency} onChange={(v) => setOtherCurrency(v.toUpperCase().slice(0, 3))} placeholder="USD" />
        <button
          type="button"
          className="bo-btn bo-btn--secondary bo-btn--sm bo-export-btn"
          disabled={!/^[A-Z]{3}$/.test(otherCurrency)}
          onClick={() => {
            chooseCurrency(otherCurrency);
            setOtherCurrency('');
          }}
        >
          Show its rules
        </button>
      </div>
      <DataTable
        rows={currencyRules.length ? currencyRules : RAILS.map((rail) => ({ rail: rail as Rail, currency: feeCurrency, ...defaultFeeRule(feeCurrency, rail as Rail), default: true }))}
        rowKey={(f) => `${f.currency}-${f.rail}`}
        columns={[
          { key: 'rail', header: 'Method', sortValue: (f) => railLabel(f.rail), render: (f) => railLabel(f.rail) },
          { key: 'pct', header: 'Percent', align: 'right', sortValue: (f) => f.percent_bps, render: (f) => `${(f.percent_bps / 100).toFixed(2)} %` },
          { key: 'fixed', header: 'Fixed', align: 'right', sortValue: (f) => f.fixed_minor, render: (f) => formatMoney(f.fixed_minor, f.currency) },
          { key: 'cap', header: 'Cap', align: 'right', sortValue: (f) => f.cap_minor, render: (f) => (f.cap_minor === null ? '—' : formatMoney(f.cap_minor, f.currency)) },
          { key: 'bearer', header: 'Paid by', sortValue: (f) => f.bearer, render: (f) => (f.bearer === 'payer' ? 'Payer (surcharge)' : 'Merchant') },
          { key: 'src', header: 'Source', hideHeader: true, render: (f) => (f.default ? <span className="bo-muted">default</span> : <StatusBadge status="active" label="custom" />) },
        ]}
      />
      <form
        className="bo-inline-form bo-mt"
        onSubmit={(e) => {
          e.preventDefault();
          saveFee.mutate(undefined);
        }}
      >
        <SelectField label="Method" value={fee.rail} onChange={(v) => setFee(ruleForm(v, feeCurrency))} options={RAILS.map((r) => ({ value: r, label: railLabel(r) }))} />
        <InputField label="Percent" value={fee.percent} onChange={(v) => setFee({ ...fee, percent: v })} inputMode="decimal" />
        <InputField label={`Fixed (${feeCurrency})`} value={fee.fixed} onChange={(v) => setFee({ ...fee, fixed: v })} placeholder={amountPlaceholder(feeCurrency, locale)} inputMode="decimal" />
        <InputField label={`Cap (${feeCurrency})`} value={fee.cap} onChange={(v) => setFee({ ...fee, cap: v })} placeholder="none" inputMode="decimal" />
        <SelectField label="Paid by" value={fee.bearer} onChange={(v) => setFee({ ...fee, bearer: v })} options={[{ value: 'payer', label: 'Payer' }, { value: 'merchant', label: 'Merchant' }]} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={saveFee.pending}>
          Save fee rule
        </button>
      </form>
    </Card>
  );
}

