import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { PageTitle, Tabs } from '../../../ui/blocks';
import { BanksTab } from './banks-tab';
import { IntegrationsTab } from './integrations-tab';
import { SandboxTab } from './sandbox-tab';
import { StaffTab } from './staff-tab';

type Tab = 'integrations' | 'staff' | 'banks' | 'sandbox';
/** Administration: integrations (keys, endpoints, rails, fees), staff, banks and branches, sandbox actions. */
export function AdminPage() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('integrations');
  return (
    <div className="bo-page">
      <PageTitle title={t('admin.title')} subtitle={t('admin.subtitle')} />
      <Tabs
        tabs={[
          { key: 'integrations', label: t('admin.tab.integrations') },
          { key: 'staff', label: t('admin.tab.staff') },
          { key: 'banks', label: t('admin.tab.banks') },
          { key: 'sandbox', label: t('admin.tab.sandbox') },
        ]}
        current={tab}
        onChange={setTab}
        label={t('tabs.admin')}
      >
        {tab === 'integrations' && <IntegrationsTab />}
        {tab === 'staff' && <StaffTab />}
        {tab === 'banks' && <BanksTab />}
        {tab === 'sandbox' && <SandboxTab />}
      </Tabs>
    </div>
  );
}

