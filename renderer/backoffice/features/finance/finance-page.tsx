import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useRouter } from '../../router';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { Card, Empty, PageTitle, SelectField, Tabs } from '../../../ui/blocks';
import { ExportView } from './export-view';
import { FINANCE_BASE as BASE } from './finance-base';
import { financeQueries } from './finance.queries';
import { InvoiceDetailView, InvoicesView } from './invoices-view';
import { RevenueLinesViewPanel } from './revenue-lines-view';
import { SessionDetailView, SessionsView } from './sessions-view';

type Tab = 'sessions' | 'invoices' | 'revenue-lines' | 'export';

/** Finance: sessions (live), invoices, revenue lines and the reconciliation export, for one merchant. */
export function FinancePage() {
  const t = useT();
  const api = useApi();
  const { session } = useSession();
  const { path, navigate } = useRouter();
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery(financeQueries.merchants(api));
  const [picked, setPicked] = useState<string>('');
  useEffect(() => {
    if (isAdmin && !picked && merchants.data?.merchants[0]) setPicked(merchants.data.merchants[0].id);
  }, [isAdmin, picked, merchants.data]);
  const merchantId = isAdmin ? picked || undefined : undefined;
  const merchantName = isAdmin ? merchants.data?.merchants.find((m) => m.id === picked)?.name : merchants.data?.merchants[0]?.name;

  const rest = path.startsWith(BASE) ? path.slice(BASE.length).replace(/^\/+/, '') : '';
  const [section = 'sessions', detail] = rest.split('/');
  const tab: Tab = (['sessions', 'invoices', 'revenue-lines', 'export'] as const).find((t) => t === section) ?? 'sessions';
  const go = (t: Tab) => navigate(t === 'sessions' ? BASE : `${BASE}/${t}`);

  return (
    <div className="bo-page">
      <PageTitle
        title={t('finance.title')}
        subtitle={merchantName ? t('finance.subtitleOf', { merchant: <span translate="no">{merchantName}</span> }) : t('finance.subtitle')}
        actions={
          isAdmin && merchants.data ? (
            <SelectField
              label={t('finance.merchant')}
              value={picked}
              onChange={setPicked}
              options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name, data: true }))}
            />
          ) : undefined
        }
      />
      <Tabs
        tabs={[
          { key: 'sessions', label: t('finance.tab.sessions') },
          { key: 'invoices', label: t('finance.tab.invoices') },
          { key: 'revenue-lines', label: t('finance.tab.revenueLines') },
          { key: 'export', label: t('finance.tab.export') },
        ]}
        current={tab}
        onChange={go}
        label={t('tabs.finance')}
      >
      {isAdmin && !merchantId ? (
        merchants.isPending ? null : <Card><Empty title={t('finance.noMerchant')}>{t('finance.noMerchantHint')}</Empty></Card>
      ) : tab === 'sessions' && detail ? (
        <SessionDetailView id={decodeURIComponent(detail)} />
      ) : tab === 'sessions' ? (
        // Keyed by merchant: another merchant's list starts at its first page (a cursor is a position in one merchant's list).
        <SessionsView key={merchantId ?? 'own'} merchantId={merchantId} />
      ) : tab === 'invoices' && detail ? (
        <InvoiceDetailView merchantId={merchantId} invoiceRef={decodeURIComponent(detail)} />
      ) : tab === 'invoices' ? (
        <InvoicesView key={merchantId ?? 'own'} merchantId={merchantId} />
      ) : tab === 'revenue-lines' ? (
        <RevenueLinesViewPanel merchantId={merchantId} />
      ) : (
        <ExportView merchantId={merchantId} />
      )}
      </Tabs>
    </div>
  );
}

