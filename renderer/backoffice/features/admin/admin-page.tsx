import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { errorMessage, useApi } from '../common/api';
import { formatDateTime, formatMoney, parseAmount, railLabel } from '../common/format';
import { Card, DataTable, Empty, InputField, Mono, PageTitle, QueryState, SelectField, ShortId, StatusBadge, Tabs } from '../common/ui';
import { adminQueries, type IntegrationView } from './admin.queries';
import { SecretOnce } from './copy-secret';
import { StaffAccountSection } from './staff-section';

type Tab = 'integrations' | 'staff' | 'banks' | 'sandbox';
const RAILS = ['momo', 'card', 'bank_transfer', 'cash'];

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

/** One mutation with its outcome message and the admin caches refreshed. */
function useAdminAction<A, R>(fn: (a: A) => Promise<R>, success: (r: R) => ReactNode | null) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<{ tone: 'success' | 'error'; body: ReactNode } | null>(null);
  const m = useMutation({
    mutationFn: fn,
    onSuccess: (r) => {
      const body = success(r);
      setNote(body ? { tone: 'success', body } : null);
      void queryClient.invalidateQueries({ queryKey: ['admin', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', body: errorMessage(err) }),
  });
  const view = note ? (
    <div className={`bo-alert bo-alert--${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>
      {note.body}
    </div>
  ) : null;
  return { mutate: m.mutate, pending: m.isPending, note: view, clear: () => setNote(null) };
}

function IntegrationsTab() {
  const api = useApi();
  const list = useQuery(adminQueries.integrations(api));
  const [merchant, setMerchant] = useState('');
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState<{ api_key: string; webhook_secret: string | null } | null>(null);
  const create = useAdminAction(
    () => api.post<{ api_key: string; webhook_secret: string | null }>('/admin/integrations', { merchant_name: merchant, ...(url.trim() ? { webhook_url: url.trim() } : {}) }),
    (r) => {
      setSecrets(r);
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
            <SecretOnce label="API key" value={secrets.api_key} onDone={() => setSecrets(null)} />
            {secrets.webhook_secret && <SecretOnce label="Webhook signing secret" value={secrets.webhook_secret} onDone={() => setSecrets(null)} />}
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

function IntegrationDetail({ i, onClose }: { i: IntegrationView; onClose: () => void }) {
  const api = useApi();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [rails, setRails] = useState<string[]>(i.allowed_rails);
  const [endpointUrl, setEndpointUrl] = useState('');
  const [fee, setFee] = useState({ rail: 'cash', percent: '0', fixed: '2.00', cap: '', bearer: 'payer' });
  const newKey = useAdminAction(
    () => api.post<{ api_key: string }>(`/admin/integrations/${i.integration_id}/api-keys`),
    (r) => {
      setSecret({ label: 'API key', value: r.api_key });
      return null;
    },
  );
  const revoke = useAdminAction((id: string) => api.post(`/admin/api-keys/${id}/revoke`), () => 'Key revoked: requests with it now answer 401.');
  const saveRails = useAdminAction(() => api.post(`/admin/integrations/${i.integration_id}/rails`, { allowed_rails: rails }), () => 'Payment methods saved.');
  const addEndpoint = useAdminAction(
    () => api.post<{ secret: string }>(`/admin/integrations/${i.integration_id}/webhook-endpoints`, { url: endpointUrl.trim() }),
    (r) => {
      setSecret({ label: 'Webhook signing secret', value: r.secret });
      setEndpointUrl('');
      return null;
    },
  );
  const endpointAction = useAdminAction(
    ({ id, action }: { id: string; action: 'rotate-secret' | 'disable' | 'enable' }) =>
      api.post<{ secret?: string }>(`/webhooks/endpoints/${id}/${action}`, action === 'disable' ? { reason: 'disabled by an admin' } : action === 'rotate-secret' ? { overlap_hours: 24 } : {}),
    (r) => {
      if (r.secret) {
        setSecret({ label: 'New signing secret (the old one keeps signing for 24 h)', value: r.secret });
        return null;
      }
      return 'Endpoint updated.';
    },
  );
  const saveFee = useAdminAction(
    () => {
      const fixed = parseAmount(fee.fixed, 'GHS');
      const cap = fee.cap.trim() ? parseAmount(fee.cap, 'GHS') : null;
      const bps = Math.round(Number(fee.percent) * 100);
      if (fixed === null || (fee.cap.trim() && cap === null) || !Number.isFinite(bps) || bps < 0 || bps > 10_000) {
        return Promise.reject(new Error('Enter the percentage (0–100) and amounts like 2.00.'));
      }
      return api.post(`/admin/integrations/${i.integration_id}/fee-rules`, { rail: fee.rail, percent_bps: bps, fixed_minor: fixed, cap_minor: cap, bearer: fee.bearer });
    },
    () => `Fee rule for ${railLabel(fee.rail)} saved.`,
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
          { key: 'prefix', header: 'Key', sortValue: (k) => k.prefix, render: (k) => <Mono>{`${k.prefix}…`}</Mono> },
          { key: 'created', header: 'Created', nowrap: true, sortValue: (k) => k.created_at, render: (k) => formatDateTime(k.created_at) },
          { key: 'state', header: 'State', sortValue: (k) => (k.revoked_at ? 'revoked' : 'active'), render: (k) => <StatusBadge status={k.revoked_at ? 'revoked' : 'active'} /> },
          {
            key: 'act',
            header: '',
            align: 'right',
            render: (k) =>
              k.revoked_at ? null : (
                <button type="button" className="bo-btn bo-btn--danger bo-btn--sm" disabled={revoke.pending} onClick={() => revoke.mutate(k.id)}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-mt" disabled={newKey.pending} onClick={() => newKey.mutate(undefined)}>
        Create API key
      </button>

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
              header: '',
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
                    onClick={() => endpointAction.mutate({ id: e.id, action: e.status === 'active' ? 'disable' : 'enable' })}
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

      <div className="bo-subhead">Fee rules</div>
      <DataTable
        rows={i.fee_rules}
        rowKey={(f) => f.rail}
        columns={[
          { key: 'rail', header: 'Method', sortValue: (f) => railLabel(f.rail), render: (f) => railLabel(f.rail) },
          { key: 'pct', header: 'Percent', align: 'right', sortValue: (f) => f.percent_bps, render: (f) => `${(f.percent_bps / 100).toFixed(2)} %` },
          { key: 'fixed', header: 'Fixed', align: 'right', sortValue: (f) => f.fixed_minor, render: (f) => formatMoney(f.fixed_minor, 'GHS') },
          { key: 'cap', header: 'Cap', align: 'right', sortValue: (f) => f.cap_minor, render: (f) => (f.cap_minor === null ? '—' : formatMoney(f.cap_minor, 'GHS')) },
          { key: 'bearer', header: 'Paid by', sortValue: (f) => f.bearer, render: (f) => (f.bearer === 'payer' ? 'Payer (surcharge)' : 'Merchant') },
          { key: 'src', header: '', render: (f) => (f.default ? <span className="bo-muted">default</span> : <StatusBadge status="active" label="custom" />) },
        ]}
      />
      <form
        className="bo-inline-form bo-mt"
        onSubmit={(e) => {
          e.preventDefault();
          saveFee.mutate(undefined);
        }}
      >
        <SelectField label="Method" value={fee.rail} onChange={(v) => setFee({ ...fee, rail: v })} options={RAILS.map((r) => ({ value: r, label: railLabel(r) }))} />
        <InputField label="Percent" value={fee.percent} onChange={(v) => setFee({ ...fee, percent: v })} />
        <InputField label="Fixed (GHS)" value={fee.fixed} onChange={(v) => setFee({ ...fee, fixed: v })} />
        <InputField label="Cap (GHS)" value={fee.cap} onChange={(v) => setFee({ ...fee, cap: v })} placeholder="none" />
        <SelectField label="Paid by" value={fee.bearer} onChange={(v) => setFee({ ...fee, bearer: v })} options={[{ value: 'payer', label: 'Payer' }, { value: 'merchant', label: 'Merchant' }]} />
        <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={saveFee.pending}>
          Save fee rule
        </button>
      </form>
    </Card>
  );
}

function StaffTab() {
  const api = useApi();
  const staff = useQuery(adminQueries.staff(api));
  const banks = useQuery(adminQueries.banks(api));
  const integrations = useQuery(adminQueries.integrations(api));
  const [form, setForm] = useState({ username: '', password: '', role: 'teller', branch: '', merchant: '' });
  const create = useAdminAction(
    () =>
      api.post('/admin/staff', {
        username: form.username.trim(),
        password: form.password,
        role: form.role,
        ...(form.role === 'teller' && form.branch ? { branch_id: form.branch } : {}),
        ...(form.role === 'finance' && form.merchant ? { merchant_id: form.merchant } : {}),
      }),
    () => {
      const name = form.username;
      setForm({ ...form, username: '', password: '' });
      return `Created ${name}.`;
    },
  );
  const toggle = useAdminAction(({ id, disable }: { id: string; disable: boolean }) => api.post(`/admin/staff/${id}/${disable ? 'disable' : 'enable'}`), () => 'Saved.');
  const branchOptions = (banks.data?.banks ?? []).flatMap((b) => b.branches.filter((br) => br.active).map((br) => ({ value: br.id, label: `${b.name}, ${br.name}` })));
  const merchantOptions = [...new Map((integrations.data?.integrations ?? []).map((i) => [i.merchant_id, i.merchant_name])).entries()].map(([value, label]) => ({ value, label }));
  return (
    <>
      <Card title="New staff account">
        <form
          className="bo-inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(undefined);
          }}
        >
          <InputField label="Username" value={form.username} onChange={(v) => setForm({ ...form, username: v })} />
          <InputField label="Temporary password (12+)" type="password" value={form.password} onChange={(v) => setForm({ ...form, password: v })} />
          <SelectField label="Role" value={form.role} onChange={(v) => setForm({ ...form, role: v })} options={['teller', 'supervisor', 'finance', 'admin'].map((r) => ({ value: r, label: r }))} />
          {form.role === 'teller' && <SelectField label="Branch" value={form.branch} onChange={(v) => setForm({ ...form, branch: v })} options={[{ value: '', label: 'No branch' }, ...branchOptions]} />}
          {form.role === 'finance' && <SelectField label="Merchant" value={form.merchant} onChange={(v) => setForm({ ...form, merchant: v })} options={[{ value: '', label: 'Choose…' }, ...merchantOptions]} />}
          <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={create.pending || !form.username.trim() || !form.password}>
            Create account
          </button>
        </form>
        {create.note}
      </Card>
      {toggle.note}
      <Card title="Staff" className="bo-card--flush" testId="staff-list">
        <QueryState query={staff} isEmpty={(d) => d.staff.length === 0} empty={<Empty title="No staff yet" />}>
          {(d) => (
            <DataTable
              rows={d.staff}
              rowKey={(s) => s.id}
              caption="Staff accounts"
              testId="staff-table"
              pageSize={15}
              defaultSort={{ key: 'user', dir: 'asc' }}
              columns={[
                { key: 'user', header: 'Username', sortValue: (s) => s.username, render: (s) => s.username },
                { key: 'role', header: 'Role', sortValue: (s) => s.role, render: (s) => <span className="bo-cap">{s.role}</span> },
                { key: 'bound', header: 'Bound to', sortValue: (s) => s.branch_name ?? s.merchant_name, render: (s) => s.branch_name ?? s.merchant_name ?? <span className="bo-muted">—</span> },
                { key: 'created', header: 'Created', nowrap: true, sortValue: (s) => s.created_at, render: (s) => formatDateTime(s.created_at) },
                { key: 'state', header: 'State', sortValue: (s) => (s.disabled_at ? 'disabled' : 'active'), render: (s) => <StatusBadge status={s.disabled_at ? 'disabled' : 'active'} /> },
                {
                  key: 'act',
                  header: '',
                  align: 'right',
                  render: (s) =>
                    s.id === api.userId ? (
                      <span className="bo-muted">you</span>
                    ) : (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${s.disabled_at ? 'bo-btn--secondary' : 'bo-btn--danger'}`}
                        disabled={toggle.pending}
                        onClick={() => toggle.mutate({ id: s.id, disable: !s.disabled_at })}
                      >
                        {s.disabled_at ? 'Enable' : 'Disable'}
                      </button>
                    ),
                },
              ]}
            />
          )}
        </QueryState>
      </Card>
      <StaffAccountSection />
    </>
  );
}

function BanksTab() {
  const api = useApi();
  const banks = useQuery(adminQueries.banks(api));
  const [bank, setBank] = useState({ name: '', code: '' });
  const [branch, setBranch] = useState({ bank: '', name: '', code: '' });
  const addBank = useAdminAction(() => api.post('/admin/banks', bank), () => {
    setBank({ name: '', code: '' });
    return 'Bank added.';
  });
  const addBranch = useAdminAction(() => api.post(`/admin/banks/${branch.bank}/branches`, { name: branch.name, code: branch.code }), () => {
    setBranch({ ...branch, name: '', code: '' });
    return 'Branch added.';
  });
  const change = useAdminAction(
    ({ kind, id, action, name }: { kind: 'banks' | 'branches'; id: string; action: 'activate' | 'deactivate' | 'rename'; name?: string }) =>
      api.post(`/admin/${kind}/${encodeURIComponent(id)}/${action}`, action === 'rename' ? { name } : undefined),
    () => {
      setRenaming(null);
      return null;
    },
  );
  const [renaming, setRenaming] = useState<string | null>(null);
  const rename = (kind: 'banks' | 'branches', id: string, current: string) =>
    renaming === id ? (
      <RenameForm label={`New name for ${current}`} initial={current} busy={change.pending} onSave={(name) => change.mutate({ kind, id, action: 'rename', name })} onCancel={() => setRenaming(null)} />
    ) : null;
  const actions = (kind: 'banks' | 'branches', id: string, name: string, active: boolean) =>
    renaming === id ? null : (
      <div className="bo-inline-form bo-inline-form--end">
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => setRenaming(id)} aria-label={`Rename ${name}`}>
          Rename
        </button>
        <button
          type="button"
          className={`bo-btn bo-btn--sm ${active ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
          disabled={change.pending}
          onClick={() => change.mutate({ kind, id, action: active ? 'deactivate' : 'activate' })}
          aria-label={`${active ? 'Deactivate' : 'Activate'} ${name}`}
        >
          {active ? 'Deactivate' : 'Activate'}
        </button>
      </div>
    );
  return (
    <>
      <div className="bo-grid-2">
        <Card title="Add a bank">
          <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), addBank.mutate(undefined))}>
            <InputField label="Name" value={bank.name} onChange={(v) => setBank({ ...bank, name: v })} />
            <InputField label="Code" value={bank.code} onChange={(v) => setBank({ ...bank, code: v })} />
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={addBank.pending || !bank.name.trim() || !bank.code.trim()}>
              Add bank
            </button>
          </form>
          {addBank.note}
        </Card>
        <Card title="Add a branch">
          <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), addBranch.mutate(undefined))}>
            <SelectField label="Bank" value={branch.bank} onChange={(v) => setBranch({ ...branch, bank: v })} options={[{ value: '', label: 'Choose…' }, ...(banks.data?.banks ?? []).map((b) => ({ value: b.id, label: b.name }))]} />
            <InputField label="Name" value={branch.name} onChange={(v) => setBranch({ ...branch, name: v })} />
            <InputField label="Code" value={branch.code} onChange={(v) => setBranch({ ...branch, code: v })} />
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={addBranch.pending || !branch.bank || !branch.name.trim() || !branch.code.trim()}>
              Add branch
            </button>
          </form>
          {addBranch.note}
        </Card>
      </div>
      {change.note}
      <QueryState query={banks} isEmpty={(d) => d.banks.length === 0} empty={<Card><Empty title="No banks" /></Card>}>
        {(d) => (
          <>
            <Card title="Banks" className="bo-card--flush" testId="banks-table">
              <p className="bo-muted bo-card__note">A deactivated bank and all its branches disappear from the payer&apos;s checkout options; reactivating it brings back its active branches.</p>
              <DataTable
                caption="Banks"
                rows={d.banks}
                rowKey={(b) => b.id}
                defaultSort={{ key: 'name', dir: 'asc' }}
                columns={[
                  { key: 'name', header: 'Bank', sortValue: (b) => b.name, render: (b) => rename('banks', b.id, b.name) ?? b.name },
                  { key: 'code', header: 'Code', sortValue: (b) => b.code, render: (b) => <Mono>{b.code}</Mono> },
                  { key: 'branches', header: 'Active branches', align: 'right', sortValue: (b) => b.branches.filter((br) => br.active).length, render: (b) => `${b.branches.filter((br) => br.active).length} of ${b.branches.length}` },
                  { key: 'state', header: 'State', sortValue: (b) => (b.active ? 'active' : 'inactive'), render: (b) => <StatusBadge status={b.active ? 'active' : 'inactive'} /> },
                  { key: 'act', header: '', align: 'right', render: (b) => actions('banks', b.id, b.name, b.active) },
                ]}
              />
            </Card>
            <Card title="Branches" className="bo-card--flush" testId="banks-list">
              <DataTable
                caption="Branches"
                rows={d.banks.flatMap((b) => b.branches.map((br) => ({ ...br, bank: b.name, bankCode: b.code, bankActive: b.active })))}
                rowKey={(r) => r.id}
                pageSize={15}
                defaultSort={{ key: 'bank', dir: 'asc' }}
                columns={[
                  { key: 'bank', header: 'Bank', sortValue: (r) => `${r.bank}\u0000${r.name}`, render: (r) => `${r.bank} (${r.bankCode})` },
                  { key: 'branch', header: 'Branch', sortValue: (r) => r.name, render: (r) => rename('branches', r.id, r.name) ?? r.name },
                  { key: 'code', header: 'Code', sortValue: (r) => r.code, render: (r) => <Mono>{r.code}</Mono> },
                  {
                    key: 'state',
                    header: 'State',
                    sortValue: (r) => (r.active ? 'active' : 'inactive'),
                    render: (r) => <StatusBadge status={r.active ? 'active' : 'inactive'} label={r.active && !r.bankActive ? 'active (bank inactive)' : undefined} />,
                  },
                  { key: 'act', header: '', align: 'right', render: (r) => actions('branches', r.id, r.name, r.active) },
                ]}
              />
            </Card>
          </>
        )}
      </QueryState>
    </>
  );
}

/** An inline rename: the field has focus, Enter saves, Escape cancels. */
function RenameForm({ label, initial, busy, onSave, onCancel }: { label: string; initial: string; busy: boolean; onSave: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState(initial);
  return (
    <form
      className="bo-inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() && name.trim() !== initial) onSave(name.trim());
      }}
    >
      <input className="bo-input" autoFocus aria-label={label} value={name} maxLength={120} onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && onCancel()} />
      <button type="submit" className="bo-btn bo-btn--primary bo-btn--sm" disabled={busy || !name.trim() || name.trim() === initial}>
        Save
      </button>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function SandboxTab() {
  const api = useApi();
  const [reference, setReference] = useState('');
  const [amount, setAmount] = useState('');
  const confirm = useAdminAction(
    () => {
      const minor = parseAmount(amount, 'GHS');
      if (minor === null || minor <= 0) return Promise.reject(new Error('Enter the transferred amount, e.g. 223.50.'));
      return api.post<{ session_id: string; session_status: string }>('/admin/sandbox/bank-transfers', { payment_reference: reference.trim(), amount_minor: minor });
    },
    (r) => `Transfer received: session ${r.session_id} is now ${r.session_status}.`,
  );
  return (
    <Card title="Confirm a bank transfer (sandbox)">
      <p className="bo-muted">
        Plays the sandbox bank&apos;s “transfer received” notice for a bank-transfer payment: give the payment reference the payer was shown and the amount transferred. A different amount is refused, as a real collection account would return it.
      </p>
      <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), confirm.mutate(undefined))}>
        <InputField label="Payment reference" value={reference} onChange={setReference} placeholder="PDBT-…" />
        <InputField label="Amount (GHS)" value={amount} onChange={setAmount} placeholder="223.50" />
        <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={confirm.pending || !reference.trim() || !amount.trim()}>
          Confirm transfer
        </button>
      </form>
      {confirm.note}
    </Card>
  );
}
