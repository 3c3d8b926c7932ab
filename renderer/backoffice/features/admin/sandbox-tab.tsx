import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { amountPlaceholder, parseAmount, useAmountLocale } from '../common/format';
import { amountErrorText } from '../../../ui/amount-text';
import { Card, InputField, SelectField } from '../../../ui/blocks';
import { FEE_CURRENCIES } from './fee-currencies';
import { FormError, useAdminAction } from './use-admin-action';
import { ProviderPaymentStatusResponse } from '../../../../shared/schemas/checkout';

export function SandboxTab() {
  const t = useT();
  const api = useApi();
  const [reference, setReference] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('GHS');
  const locale = useAmountLocale();
  const confirm = useAdminAction(
    () => {
      const read = parseAmount(amount, currency, locale);
      if (!read.ok || read.minor <= 0) return Promise.reject(new FormError(read.ok ? t('admin.sandbox.enterAmount') : amountErrorText(t, read)));
      return api.post('/admin/sandbox/bank-transfers', { payment_reference: reference.trim(), amount_minor: read.minor }, ProviderPaymentStatusResponse);
    },
    (r) => t('admin.sandbox.done', { session: r.session_id, status: labelsWith(t).sessionStatus(r.session_status) }),
  );
  return (
    <Card title={t('admin.sandbox.title')}>
      <p className="bo-muted">
        {t('admin.sandbox.note')}
      </p>
      <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), confirm.mutate(undefined))}>
        <InputField label={t('admin.sandbox.reference')} value={reference} onChange={setReference} placeholder="PDT…" />
        <SelectField label={t('admin.sandbox.currency')} value={currency} onChange={setCurrency} options={FEE_CURRENCIES.map((c) => ({ value: c, label: c }))} />
        <InputField label={t('admin.sandbox.amount', { currency })} value={amount} onChange={setAmount} placeholder={amountPlaceholder(currency, locale)} />
        <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={confirm.pending || !reference.trim() || !amount.trim()}>
          {t('admin.sandbox.confirm')}
        </button>
      </form>
      {confirm.note}
    </Card>
  );
}
