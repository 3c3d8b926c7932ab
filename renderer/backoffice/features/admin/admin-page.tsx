import { useState } from 'react';
import { PageTitle, Tabs } from '../../../ui/blocks';
import { BanksTab } from './banks-tab';
import { IntegrationsTab } from './integrations-tab';
import { SandboxTab } from './sandbox-tab';
import { StaffTab } from './staff-tab';

type Tab = 'integrations' | 'staff' | 'banks' | 'sandbox';
/** Administration: integrations (keys, endpoints, rails, fees), staff, banks and branches, sandbox actions. */
export function AdminPage() {
  const [tab, setTab] = useState<Tab>('integrations');
  return (
    <div className="bo-page">
      <PageTitle title="Administration" subtitle="Merchants and their integrations, staff accounts, banks and branches." />
      <Tabs
        tabs={[
          { key: 'integrations', label: 'Integrations' },
          { key: 'staff', label: 'Staff' },
          { key: 'banks', label: 'Banks & branches' },
          { key: 'sandbox', label: 'Sandbox' },
        ]}
        current={tab}
        onChange={setTab}
      />
      {tab === 'integrations' && <IntegrationsTab />}
      {tab === 'staff' && <StaffTab />}
      {tab === 'banks' && <BanksTab />}
      {tab === 'sandbox' && <SandboxTab />}
    </div>
  );
}

