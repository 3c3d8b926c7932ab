import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, InputField, QueryState, SelectField, StatusBadge } from '../../../ui/blocks';
import { ConfirmDialog } from '../common/confirm-dialog';
import { adminQueries, type StaffRow } from './admin.queries';
import { StaffAccountSection } from './staff-section';
import { useAdminAction } from './use-admin-action';

export function StaffTab() {
  const t = useT();
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
      return t('admin.staff.created', { username: name });
    },
  );
  const [confirming, setConfirming] = useState<{ id: string; username: string } | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; username: string; name: string } | null>(null);
  const rename = useAdminAction(
    ({ id, name }: { id: string; name: string; username: string }) => api.post(`/admin/staff/${id}/full-name`, { full_name: name.trim() }),
    (_r, { username, name }) => t('admin.staff.renamed', { username, name: name.trim() }),
    () => setRenaming(null),
  );
  const toggle = useAdminAction(
    ({ id, disable }: { id: string; disable: boolean; username: string }) => api.post(`/admin/staff/${id}/${disable ? 'disable' : 'enable'}`),
    (_r, { disable, username }) => (disable ? t('admin.staff.disabled', { username }) : t('admin.staff.enabled', { username })),
    () => setConfirming(null),
  );
  const branchOptions = (banks.data?.banks ?? []).flatMap((b) => b.branches.filter((br) => br.active).map((br) => ({ value: br.id, label: `${b.name}, ${br.name}`, data: true })));
  const merchantOptions = [...new Map((integrations.data?.integrations ?? []).map((i) => [i.merchant_id, i.merchant_name])).entries()].map(([value, label]) => ({ value, label, data: true }));
  return (
    <>
      <Card title={t('admin.staff.newTitle')}>
        <form
          className="bo-inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(undefined);
          }}
        >
          <InputField label={t('admin.staff.fullName')} value={form.fullName} onChange={(v) => setForm({ ...form, fullName: v })} />
          <InputField label={t('admin.staff.username')} value={form.username} onChange={(v) => setForm({ ...form, username: v })} />
          <InputField label={t('admin.staff.tempPassword')} type="password" value={form.password} onChange={(v) => setForm({ ...form, password: v })} />
          <SelectField label={t('admin.staff.role')} value={form.role} onChange={(v) => setForm({ ...form, role: v })} options={['teller', 'supervisor', 'finance', 'admin'].map((r) => ({ value: r, label: labelsWith(t).role(r) }))} />
          {form.role === 'teller' && <SelectField label={t('admin.branch')} value={form.branch} onChange={(v) => setForm({ ...form, branch: v })} options={[{ value: '', label: t('admin.noBranch') }, ...branchOptions]} />}
          {form.role === 'finance' && <SelectField label={t('admin.merchant')} value={form.merchant} onChange={(v) => setForm({ ...form, merchant: v })} options={[{ value: '', label: t('admin.choose') }, ...merchantOptions]} />}
          <button type="submit" className="bo-btn bo-btn--primary bo-export-btn" disabled={create.pending || !form.username.trim() || !form.fullName.trim() || !form.password}>
            {t('admin.staff.create')}
          </button>
        </form>
        {create.note}
      </Card>
      {toggle.note}
      <ConfirmDialog
        open={confirming !== null}
        title={t('admin.staff.disableTitle', { username: confirming?.username ?? '' })}
        confirmLabel={t('admin.staff.disableConfirm')}
        tone="danger"
        busy={toggle.pending}
        onConfirm={() => confirming && toggle.mutate({ id: confirming.id, disable: true, username: confirming.username })}
        onCancel={() => setConfirming(null)}
      >
        <p>{t('admin.staff.disableBody')}</p>
      </ConfirmDialog>
      {rename.note}
      <ConfirmDialog
        open={renaming !== null}
        title={t('admin.staff.nameTitle', { username: renaming?.username ?? '' })}
        confirmLabel={t('admin.staff.saveName')}
        busy={rename.pending}
        onConfirm={() => renaming && renaming.name.trim() && rename.mutate({ id: renaming.id, name: renaming.name, username: renaming.username })}
        onCancel={() => setRenaming(null)}
      >
        {renaming && <InputField label={t('admin.staff.nameOnReceipts')} value={renaming.name} onChange={(v) => setRenaming({ ...renaming, name: v })} />}
      </ConfirmDialog>
      <Card title={t('admin.staff.title')} className="bo-card--flush" testId="staff-list">
        <QueryState query={staff} isEmpty={(d) => d.staff.length === 0} empty={<Empty title={t('admin.staff.empty')} />}>
          {(d) => (
            <DataTable
              rows={d.staff}
              rowKey={(s) => s.id}
              caption={t('admin.staff.caption')}
              testId="staff-table"
              pageSize={15}
              defaultSort={{ key: 'user', dir: 'asc' }}
              columns={[
                { key: 'name', header: t('admin.staff.fullName'), sortValue: (s) => s.full_name ?? '', render: (s) => (s.full_name ? <span translate="no">{s.full_name}</span> : <span className="bo-muted">{t('admin.staff.notGiven')}</span>) },
                { key: 'user', header: t('admin.staff.username'), sortValue: (s) => s.username, render: (s) => <span translate="no">{s.username}</span> },
                { key: 'role', header: t('admin.staff.role'), sortValue: (s) => s.role, render: (s) => <span className="bo-cap">{labelsWith(t).role(s.role)}</span> },
                { key: 'bound', header: t('admin.staff.boundTo'), sortValue: (s) => boundTo(s) ?? '', render: (s) => (boundTo(s) ? <span translate="no">{boundTo(s)}</span> : <span className="bo-muted">—</span>) },
                { key: 'created', header: t('admin.created'), nowrap: true, sortValue: (s) => s.created_at, render: (s) => <time dateTime={s.created_at}>{formatDateTime(s.created_at)}</time> },
                { key: 'state', header: t('admin.state'), sortValue: (s) => (s.disabled_at ? 'disabled' : 'active'), render: (s) => <StatusBadge status={s.disabled_at ? 'disabled' : 'active'} label={s.disabled_at ? t('admin.stateDisabled') : t('admin.stateActive')} /> },
                {
                  key: 'act',
                  header: t('admin.actions'),
                  hideHeader: true,
                  align: 'right',
                  render: (s) => (
                    <span className="bo-row-actions">
                      <button type="button" className="bo-btn bo-btn--sm bo-btn--secondary" onClick={() => setRenaming({ id: s.id, username: s.username, name: s.full_name ?? '' })} aria-label={t('admin.staff.editNameOf', { username: s.username })}>
                        {t('admin.staff.editName')}
                      </button>
                      {s.id === api.userId ? (
                      <span className="bo-muted">{t('admin.staff.you')}</span>
                    ) : (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${s.disabled_at ? 'bo-btn--secondary' : 'bo-btn--danger'}`}
                        disabled={toggle.pending}
                        onClick={() => (s.disabled_at ? toggle.mutate({ id: s.id, disable: false, username: s.username }) : setConfirming(s))}
                        aria-label={s.disabled_at ? t('admin.staff.enableNamed', { username: s.username }) : t('admin.staff.disableNamed', { username: s.username })}
                      >
                        {s.disabled_at ? t('admin.enable') : t('admin.disable')}
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
