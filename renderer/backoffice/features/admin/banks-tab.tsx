import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { Card, DataTable, Empty, InputField, Mono, QueryState, SelectField, StatusBadge } from '../../../ui/blocks';
import { adminQueries } from './admin.queries';
import { useAdminAction } from './use-admin-action';

export function BanksTab() {
  const t = useT();
  const api = useApi();
  const banks = useQuery(adminQueries.banks(api));
  const [bank, setBank] = useState({ name: '', code: '' });
  const [branch, setBranch] = useState({ bank: '', name: '', code: '' });
  const addBank = useAdminAction(() => api.post('/admin/banks', bank), () => {
    setBank({ name: '', code: '' });
    return t('admin.banks.added');
  });
  const addBranch = useAdminAction(() => api.post(`/admin/banks/${branch.bank}/branches`, { name: branch.name, code: branch.code }), () => {
    setBranch({ ...branch, name: '', code: '' });
    return t('admin.branches.added');
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
      <RenameForm label={t('admin.newNameFor', { name: current })} initial={current} busy={change.pending} onSave={(name) => change.mutate({ kind, id, action: 'rename', name })} onCancel={() => setRenaming(null)} />
    ) : null;
  const actions = (kind: 'banks' | 'branches', id: string, name: string, active: boolean) =>
    renaming === id ? null : (
      <div className="bo-inline-form bo-inline-form--end">
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => setRenaming(id)} aria-label={t('admin.renameNamed', { name })}>
          {t('admin.rename')}
        </button>
        <button
          type="button"
          className={`bo-btn bo-btn--sm ${active ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
          disabled={change.pending}
          onClick={() => change.mutate({ kind, id, action: active ? 'deactivate' : 'activate' })}
          aria-label={active ? t('admin.deactivateNamed', { name }) : t('admin.activateNamed', { name })}
        >
          {active ? t('admin.deactivate') : t('admin.activate')}
        </button>
      </div>
    );
  return (
    <>
      <div className="bo-grid-2">
        <Card title={t('admin.banks.addTitle')}>
          <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), addBank.mutate(undefined))}>
            <InputField label={t('admin.name')} value={bank.name} onChange={(v) => setBank({ ...bank, name: v })} />
            <InputField label={t('admin.code')} value={bank.code} onChange={(v) => setBank({ ...bank, code: v })} />
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={addBank.pending || !bank.name.trim() || !bank.code.trim()}>
              {t('admin.banks.add')}
            </button>
          </form>
          {addBank.note}
        </Card>
        <Card title={t('admin.branches.addTitle')}>
          <form className="bo-inline-form" onSubmit={(e) => (e.preventDefault(), addBranch.mutate(undefined))}>
            <SelectField label={t('admin.bank')} value={branch.bank} onChange={(v) => setBranch({ ...branch, bank: v })} options={[{ value: '', label: t('admin.choose') }, ...(banks.data?.banks ?? []).map((b) => ({ value: b.id, label: b.name, data: true }))]} />
            <InputField label={t('admin.name')} value={branch.name} onChange={(v) => setBranch({ ...branch, name: v })} />
            <InputField label={t('admin.code')} value={branch.code} onChange={(v) => setBranch({ ...branch, code: v })} />
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={addBranch.pending || !branch.bank || !branch.name.trim() || !branch.code.trim()}>
              {t('admin.branches.add')}
            </button>
          </form>
          {addBranch.note}
        </Card>
      </div>
      {change.note}
      <QueryState query={banks} isEmpty={(d) => d.banks.length === 0} empty={<Card><Empty title={t('admin.banks.empty')} /></Card>}>
        {(d) => (
          <>
            <Card title={t('admin.banks.title')} className="bo-card--flush" testId="banks-table">
              <p className="bo-muted bo-card__note">{t('admin.banks.note')}</p>
              <DataTable
                caption={t('admin.banks.title')}
                rows={d.banks}
                rowKey={(b) => b.id}
                defaultSort={{ key: 'name', dir: 'asc' }}
                columns={[
                  { key: 'name', header: t('admin.bank'), sortValue: (b) => b.name, render: (b) => rename('banks', b.id, b.name) ?? <span translate="no">{b.name}</span> },
                  { key: 'code', header: t('admin.code'), sortValue: (b) => b.code, render: (b) => <Mono>{b.code}</Mono> },
                  { key: 'branches', header: t('admin.banks.activeBranches'), align: 'right', sortValue: (b) => b.branches.filter((br) => br.active).length, render: (b) => t('admin.banks.activeOf', { active: b.branches.filter((br) => br.active).length, total: b.branches.length }) },
                  { key: 'state', header: t('admin.state'), sortValue: (b) => (b.active ? 'active' : 'inactive'), render: (b) => <StatusBadge status={b.active ? 'active' : 'inactive'} label={b.active ? t('admin.stateActive') : t('admin.stateInactive')} /> },
                  { key: 'act', header: t('admin.actions'), hideHeader: true, align: 'right', render: (b) => actions('banks', b.id, b.name, b.active) },
                ]}
              />
            </Card>
            <Card title={t('admin.branches.title')} className="bo-card--flush" testId="banks-list">
              <DataTable
                caption={t('admin.branches.title')}
                rows={d.banks.flatMap((b) => b.branches.map((br) => ({ ...br, bank: b.name, bankCode: b.code, bankActive: b.active })))}
                rowKey={(r) => r.id}
                pageSize={15}
                defaultSort={{ key: 'bank', dir: 'asc' }}
                columns={[
                  { key: 'bank', header: t('admin.bank'), sortValue: (r) => `${r.bank}\u0000${r.name}`, render: (r) => <span translate="no">{`${r.bank} (${r.bankCode})`}</span> },
                  { key: 'branch', header: t('admin.branch'), sortValue: (r) => r.name, render: (r) => rename('branches', r.id, r.name) ?? <span translate="no">{r.name}</span> },
                  { key: 'code', header: t('admin.code'), sortValue: (r) => r.code, render: (r) => <Mono>{r.code}</Mono> },
                  {
                    key: 'state',
                    header: t('admin.state'),
                    sortValue: (r) => (r.active ? 'active' : 'inactive'),
                    render: (r) => <StatusBadge status={r.active ? 'active' : 'inactive'} label={r.active ? (r.bankActive ? t('admin.stateActive') : t('admin.branches.activeBankInactive')) : t('admin.stateInactive')} />,
                  },
                  { key: 'act', header: t('admin.actions'), hideHeader: true, align: 'right', render: (r) => actions('branches', r.id, r.name, r.active) },
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
  const t = useT();
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
        {t('admin.save')}
      </button>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onCancel}>
        {t('admin.cancel')}
      </button>
    </form>
  );
}

