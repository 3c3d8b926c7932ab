import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../common/api';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, InputField, QueryState, SelectField, StatusBadge } from '../../../ui/blocks';
import { ConfirmDialog } from '../common/confirm-dialog';
import { adminQueries, type StaffRow } from './admin.queries';
import { StaffAccountSection } from './staff-section';
import { useAdminAction } from './use-admin-action';

export function StaffTab() {
  const api = useApi();
  const staff = useQuery(adminQueries.staff(api));
  const banks = useQuery(adminQueries.banks(api));
  const integrations = useQuery(adminQueries.integrations(api));
  const [form, setForm] = useState({ username: '', fullName: '', password: '', role: 'teller', branch: '', merchant: '' });
  const create = useAdminAction(
    () =>
      api.post('/admin/staff', {
        username: form.username.trim(),
        full_name: form.fullName.trim(),
        password: form.password,
        role: form.role,
        ...(form.role === 'teller' && form.branch ? { branch_id: form.branch } : {}),
        ...(form.role === 'finance' && form.merchant ? { merchant_id: form.merchant } : {}),
      }),
    () => {
      const name = form.username;
      setForm({ ...form, username: '', fullName: '', password: '' });
      return `Created ${name}.`;
    },
  );
  const [confirming, setConfirming] = useState<{ id: string; username: string } | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; username: string; name: string } | null>(null);
  const rename = useAdminAction(
    ({ id, name }: { id: string; name: string; username: string }) => api.post(`/admin/staff/${id}/full-name`, { full_name: name.trim() }),
    (_r, { username, name }) => `${username} is now ${name.trim()}.`,
    () => setRenaming(null),
  );
  const toggle = useAdminAction(
    ({ id, disable }: { id: string; disable: boolean; username: string }) => api.post(`/admin/staff/${id}/${disable ? 'disable' : 'enable'}`),
    (_r, { disable, username }) => (disable ? `${username} is disabled and signed out.` : `${username} may sign in again.`),
    () => setConfirming(null),
  );
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
          <InputField label="Full name" value={form.fullName} onChange={(v) => setForm({ ...form, fullName: v })} />
          <InputField label="Username" value={form.username} onChange={(v) => setForm({ ...form, username: v })} />
          <InputField label="Temporary password (12+)" type="password" value={form.password} onChange={(v) => setForm({ ...form, password: v })} />
          <SelectField label="Role" value={form.role} onChange={(v) => setForm({ ...form, role: v })} options={['teller', 'supervisor', 'finance', 'admin'].map((r) => ({ value: r, label: r }))} />
          {form.role === 'teller' && <SelectField label="Branch" value={form.branch} onChange={(v) => setForm({ ...form, branch: v })} options={[{ value: '', label: 'No branch' }, ...branchOptions]} />}
          {form.role === 'finance' && <SelectField label="Merchant" value={form.merchant} onChange={(v) => setForm({ ...form, merchant: v })} options={[{ value: '', label: 'Choose…' }, ...merchantOptions]} />}
          <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={create.pending || !form.username.trim() || !form.fullName.trim() || !form.password}>
            Create account
          </button>
        </form>
        {create.note}
      </Card>
      {toggle.note}
      <ConfirmDialog
        open={confirming !== null}
        title={`Disable ${confirming?.username ?? ''}?`}
        confirmLabel="Disable account"
        tone="danger"
        busy={toggle.pending}
        onConfirm={() => confirming && toggle.mutate({ id: confirming.id, disable: true, username: confirming.username })}
        onCancel={() => setConfirming(null)}
      >
        <p>They are signed out at once and cannot sign in until an admin enables the account again. Their past work stays in the audit trail.</p>
      </ConfirmDialog>
      {rename.note}
      <ConfirmDialog
        open={renaming !== null}
        title={`Full name of ${renaming?.username ?? ''}`}
        confirmLabel="Save name"
        busy={rename.pending}
        onConfirm={() => renaming && renaming.name.trim() && rename.mutate({ id: renaming.id, name: renaming.name, username: renaming.username })}
        onCancel={() => setRenaming(null)}
      >
        {renaming && <InputField label="Full name (printed on receipts)" value={renaming.name} onChange={(v) => setRenaming({ ...renaming, name: v })} />}
      </ConfirmDialog>
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
                { key: 'name', header: 'Full name', sortValue: (s) => s.full_name ?? '', render: (s) => s.full_name ?? <span className="bo-muted">not given</span> },
                { key: 'user', header: 'Username', sortValue: (s) => s.username, render: (s) => s.username },
                { key: 'role', header: 'Role', sortValue: (s) => s.role, render: (s) => <span className="bo-cap">{s.role}</span> },
                { key: 'bound', header: 'Bound to', sortValue: (s) => boundTo(s) ?? '', render: (s) => boundTo(s) ?? <span className="bo-muted">—</span> },
                { key: 'created', header: 'Created', nowrap: true, sortValue: (s) => s.created_at, render: (s) => formatDateTime(s.created_at) },
                { key: 'state', header: 'State', sortValue: (s) => (s.disabled_at ? 'disabled' : 'active'), render: (s) => <StatusBadge status={s.disabled_at ? 'disabled' : 'active'} /> },
                {
                  key: 'act',
                  header: 'Actions',
                  hideHeader: true,
                  align: 'right',
                  render: (s) => (
                    <span className="bo-row-actions">
                      <button type="button" className="bo-btn bo-btn--sm bo-btn--secondary" onClick={() => setRenaming({ id: s.id, username: s.username, name: s.full_name ?? '' })} aria-label={`Edit name of ${s.username}`}>
                        Edit name
                      </button>
                      {s.id === api.userId ? (
                      <span className="bo-muted">you</span>
                    ) : (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${s.disabled_at ? 'bo-btn--secondary' : 'bo-btn--danger'}`}
                        disabled={toggle.pending}
                        onClick={() => (s.disabled_at ? toggle.mutate({ id: s.id, disable: false, username: s.username }) : setConfirming(s))}
                        aria-label={`${s.disabled_at ? 'Enable' : 'Disable'} ${s.username}`}
                      >
                        {s.disabled_at ? 'Enable' : 'Disable'}
                      </button>
                    )}
                    </span>
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


/** "Ghana Commercial Bank, Accra Central" for a teller; the merchant for finance staff. */
const boundTo = (s: StaffRow): string | null => (s.branch_name ? [s.bank_name, s.branch_name].filter(Boolean).join(', ') : s.merchant_name);
