import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../common/api';
import { Card, DataTable, Empty, InputField, Mono, QueryState, SelectField, StatusBadge } from '../../../ui/blocks';
import { adminQueries } from './admin.queries';
import { useAdminAction } from './use-admin-action';

export function BanksTab() {
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
                  { key: 'act', header: 'Actions', hideHeader: true, align: 'right', render: (b) => actions('banks', b.id, b.name, b.active) },
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
                  { key: 'act', header: 'Actions', hideHeader: true, align: 'right', render: (r) => actions('branches', r.id, r.name, r.active) },
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

