import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { formatDateTime } from '../common/format';
import { Card, Empty, InputField, QueryState, ShortId, StatusBadge } from '../../../ui/blocks';
import { adminQueries, type IntegrationView } from './admin.queries';
import { CreatedIntegration } from '../../../../shared/schemas/admin';
import { SecretOnce } from './copy-secret';
import { IntegrationDetail } from './integration-detail';
import { useAdminAction } from './use-admin-action';

export function IntegrationsTab() {
  const t = useT();
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
      <Card title={t('admin.integrations.newTitle')}>
        <form className="bo-inline-form" onSubmit={submit}>
          <InputField label={t('admin.integrations.merchantName')} value={merchant} onChange={setMerchant} placeholder={t('admin.integrations.merchantPlaceholder')} />
          <InputField label={t('admin.integrations.webhookUrl')} value={url} onChange={setUrl} placeholder={t('admin.integrations.webhookPlaceholder')} />
          <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={create.pending || !merchant.trim()}>
            {t('admin.integrations.create')}
          </button>
        </form>
        {create.note}
        {secrets && (
          <>
            <SecretOnce label={t('admin.secret.apiKeyFor', { merchant: secrets.merchant })} value={secrets.api_key} onDone={() => setSecrets(null)} />
            {secrets.webhook_secret && <SecretOnce label={t('admin.secret.webhookFor', { url: secrets.url })} value={secrets.webhook_secret} onDone={() => setSecrets(null)} />}
          </>
        )}
      </Card>
      <QueryState query={list} isEmpty={(d) => d.integrations.length === 0} empty={<Card><Empty title={t('admin.integrations.empty')} /></Card>}>
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
  const t = useT();
  const [open, setOpen] = useState(false);
  const activeKeys = i.api_keys.filter((k) => !k.revoked_at).length;
  if (!open) {
    return (
      <Card testId="integration-card" className="bo-card--row">
        <div className="bo-row-summary">
          <div>
            <div className="bo-row-summary__title">
              <span translate="no">{i.merchant_name}</span> <StatusBadge status={i.disabled_at ? 'disabled' : 'active'} label={t('admin.integrations.mode', { mode: i.mode })} />
            </div>
            <div className="bo-muted">
              {t('admin.integrations.summary', {
                keys: activeKeys,
                endpoints: i.webhook_endpoints.length,
                rails: i.allowed_rails.map((r) => labelsWith(t).rail(r)).join(', '),
                created: <time dateTime={i.created_at}>{formatDateTime(i.created_at)}</time>,
              })}
            </div>
          </div>
          <ShortId value={i.integration_id} />
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => setOpen(true)} aria-label={t('admin.integrations.manageNamed', { merchant: i.merchant_name })}>
            {t('admin.integrations.manage')}
          </button>
        </div>
      </Card>
    );
  }
  return <IntegrationDetail i={i} onClose={() => setOpen(false)} />;
}

