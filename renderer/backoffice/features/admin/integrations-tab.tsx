import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../common/api';
import { formatDateTime, railLabel } from '../common/format';
import { Card, Empty, InputField, QueryState, ShortId, StatusBadge } from '../../../ui/blocks';
import { adminQueries, type IntegrationView } from './admin.queries';
import { CreatedIntegration } from '../../../../shared/schemas/admin';
import { SecretOnce } from './copy-secret';
import { IntegrationDetail } from './integration-detail';
import { useAdminAction } from './use-admin-action';

export function IntegrationsTab() {
  const api = useApi();
  const list = useQuery(adminQueries.integrations(api));
  const [merchant, setMerchant] = useState('');
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState<{ api_key: string; webhook_secret: string | null; merchant: string; url: string } | null>(null);
  const create = useAdminAction(
    () => api.post('/admin/integrations', { merchant_name: merchant, ...(url.trim() ? { webhook_url: url.trim() } : {}) }, CreatedIntegration),
    (r) => {
      setSecrets({ ...r, merchant: merchant.trim(), url: url.trim() });
      setMerchant('');
      setUrl('');
      return null;
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (merchant.trim()) create.mutate(undefined);
  };
  return (
    <>
      <Card title="New test integration">
        <form className="bo-inline-form" onSubmit={submit}>
          <InputField label="Merchant name" value={merchant} onChange={setMerchant} placeholder="Accra Water Co." />
          <InputField label="Webhook URL (optional)" value={url} onChange={setUrl} placeholder="https://merchant.example/hooks" />
          <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={create.pending || !merchant.trim()}>
            Create integration
          </button>
        </form>
        {create.note}
        {secrets && (
          <>
            <SecretOnce label={`API key for ${secrets.merchant}`} value={secrets.api_key} onDone={() => setSecrets(null)} />
            {secrets.webhook_secret && <SecretOnce label={`Webhook signing secret for ${secrets.url}`} value={secrets.webhook_secret} onDone={() => setSecrets(null)} />}
          </>
        )}
      </Card>
      <QueryState query={list} isEmpty={(d) => d.integrations.length === 0} empty={<Card><Empty title="No integrations yet" /></Card>}>
        {(d) => (
          <>
            {d.integrations.map((i) => (
              <IntegrationCard key={i.integration_id} i={i} />
            ))}
          </>
        )}
      </QueryState>
    </>
  );
}

function IntegrationCard({ i }: { i: IntegrationView }) {
  const [open, setOpen] = useState(false);
  const activeKeys = i.api_keys.filter((k) => !k.revoked_at).length;
  if (!open) {
    return (
      <Card testId="integration-card" className="bo-card--row">
        <div className="bo-row-summary">
          <div>
            <div className="bo-row-summary__title">
              {i.merchant_name} <StatusBadge status={i.disabled_at ? 'disabled' : 'active'} label={`${i.mode} mode`} />
            </div>
            <div className="bo-muted">
              {activeKeys} active key{activeKeys === 1 ? '' : 's'} · {i.webhook_endpoints.length} endpoint{i.webhook_endpoints.length === 1 ? '' : 's'} · {i.allowed_rails.map(railLabel).join(', ')} · created {formatDateTime(i.created_at)}
            </div>
          </div>
          <ShortId value={i.integration_id} />
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => setOpen(true)} aria-label={`Manage ${i.merchant_name} integration`}>
            Manage
          </button>
        </div>
      </Card>
    );
  }
  return <IntegrationDetail i={i} onClose={() => setOpen(false)} />;
}

