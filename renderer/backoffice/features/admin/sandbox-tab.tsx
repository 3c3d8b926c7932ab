import { useState } from 'react';
import { useApi } from '../common/api';
import { amountPlaceholder, parseAmount, useAmountLocale } from '../common/format';
import { Card, InputField, SelectField } from '../../../ui/blocks';
import { FEE_CURRENCIES } from './fee-currencies';
import { FormError, useAdminAction } from './use-admin-action';
import { ProviderPaymentStatusResponse } from '../../../../shared/schemas/checkout';

export function SandboxTab() {
  const api = useApi();
  const [reference, setReference] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('GHS');
  const locale = useAmountLocale();
  const confirm = useAdminAction(
    () => {
      const read = parseAmount(amount, currency, locale);
      if (!read.ok || read.minor <= 0) return Promise.reject(new FormError(read.ok ? 'Enter the transferred amount.' : read.message));
      return api.post('/admin/sandbox/bank-transfers', { payment_reference: reference.trim(), amount_minor: read.minor }, ProviderPaymentStatusResponse);
    },
    (r) => `Transfer received: session ${r.session_id} is now ${r.session_status}.`,
  );
  return (
    <Card title="Confirm a bank transfer (sandbox)">
      <p className="bo-muted">
        Plays the sandbox bank&apos;s “transfer received” notice for a bank-transfer payment: give the payment reference the payer was shown and the amount transferred. A different amount is refused, as a real collection account would return it.
      </p>
      <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), confirm.mutate(undefined))}>
        <InputField label="Payment reference" value={reference} onChange={setReference} placeholder="PDT…" />
        <SelectField label="Currency" value={currency} onChange={setCurrency} options={FEE_CURRENCIES.map((c) => ({ value: c, label: c }))} />
        <InputField label={`Amount (${currency})`} value={amount} onChange={setAmount} placeholder={amountPlaceholder(currency, locale)} />
        <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={confirm.pending || !reference.trim() || !amount.trim()}>
          Confirm transfer
        </button>
      </form>
      {confirm.note}
    </Card>
  );
}
