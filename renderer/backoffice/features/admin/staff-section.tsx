import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { useErrorText } from '../common/error-text';
import { ConfirmDialog } from '../common/confirm-dialog';
import { Card, InputField, SelectField } from '../../../ui/blocks';
import { adminQueries, type StaffRow } from './admin.queries';

const ROLES = ['teller', 'supervisor', 'finance', 'admin'];
type Pending = { kind: 'reset'; user: StaffRow } | { kind: 'role'; user: StaffRow } | null;

/**
 * Admin: reset a user's password (a temporary one they must replace at their next sign-in)
 * and change their role. Both sign the user out, are audited, and are confirmed first.
 */
export function StaffAccountSection() {
  const errorText = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const staff = useQuery(adminQueries.staff(api));
  const banks = useQuery(adminQueries.banks(api));
  const integrations = useQuery(adminQueries.integrations(api));
  const others = (staff.data?.staff ?? []).filter((s) => s.id !== api.userId);
  const [userId, setUserId] = useState('');
  const user = others.find((s) => s.id === userId) ?? null;
  const [password, setPassword] = useState('');
  const [role, setRole] = useState({ role: '', branch: '', merchant: '' });
  const [pending, setPending] = useState<Pending>(null);
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  const action = useMutation({
    mutationFn: (p: NonNullable<Pending>) =>
      p.kind === 'reset'
        ? api.post(`/admin/staff/${p.user.id}/reset-password`, { password })
        : api.post(`/admin/staff/${p.user.id}/role`, {
            role: role.role,
            ...((role.role === 'teller' || role.role === 'supervisor') && role.branch ? { branch_id: role.branch } : {}),
            ...(role.role === 'finance' && role.merchant ? { merchant_id: role.merchant } : {}),
          }),
    onSuccess: (_r, p) => {
      setNote({
        tone: 'success',
        text: p.kind === 'reset' ? t('admin.account.resetDone', { username: p.user.username }) : t('admin.account.roleDone', { username: p.user.username, role: labelsWith(t).role(role.role) }),
      });
      if (p.kind === 'reset') setPassword('');
      void queryClient.invalidateQueries({ queryKey: ['admin', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', text: errorText(err) }),
    onSettled: () => setPending(null),
  });

  const branchOptions = (banks.data?.banks ?? []).flatMap((b) => b.branches.filter((br) => br.active).map((br) => ({ value: br.id, label: `${b.name}, ${br.name}`, data: true })));
  const merchantOptions = [...new Map((integrations.data?.integrations ?? []).map((i) => [i.merchant_id, i.merchant_name])).entries()].map(([value, label]) => ({ value, label, data: true }));
  const newRole = role.role || user?.role || 'teller';

  return (
    <Card title={t('admin.account.title')} testId="staff-account-actions">
      <div className="bo-inline-form">
        <SelectField
          label={t('admin.account.member')}
          value={userId}
          onChange={(v) => {
            setUserId(v);
            setNote(null);
            setRole({ role: others.find((s) => s.id === v)?.role ?? '', branch: '', merchant: '' });
          }}
          options={[{ value: '', label: t('admin.choose') }, ...others.map((s) => ({ value: s.id, label: t('admin.account.memberOption', { username: s.username, role: labelsWith(t).role(s.role) }) }))]}
        />
      </div>
      {user && (
        <>
          <form
            className="bo-inline-form bo-mt"
            onSubmit={(e) => {
              e.preventDefault();
              setPending({ kind: 'reset', user });
            }}
          >
            <InputField label={t('admin.account.tempPassword')} type="password" value={password} onChange={setPassword} />
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={!password}>
              {t('admin.account.reset')}
            </button>
          </form>
          <form
            className="bo-inline-form bo-mt"
            onSubmit={(e) => {
              e.preventDefault();
              setPending({ kind: 'role', user });
            }}
          >
            <SelectField label={t('admin.account.newRole')} value={newRole} onChange={(v) => setRole({ role: v, branch: '', merchant: '' })} options={ROLES.map((r) => ({ value: r, label: labelsWith(t).role(r) }))} />
            {(newRole === 'teller' || newRole === 'supervisor') && (
              <SelectField label={t('admin.branch')} value={role.branch} onChange={(v) => setRole({ ...role, role: newRole, branch: v })} options={[{ value: '', label: t('admin.noBranch') }, ...branchOptions]} />
            )}
            {newRole === 'finance' && (
              <SelectField label={t('admin.merchant')} value={role.merchant} onChange={(v) => setRole({ ...role, role: newRole, merchant: v })} options={[{ value: '', label: t('admin.choose') }, ...merchantOptions]} />
            )}
            <button type="submit" className="bo-btn bo-btn--secondary bo-export-btn" disabled={!role.role || (role.role === user.role && !role.branch && !role.merchant) || (newRole === 'finance' && !role.merchant)}>
              {t('admin.account.changeRole')}
            </button>
          </form>
        </>
      )}
      {note && (
        <div className={`bo-alert bo-alert--${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>
          {note.text}
        </div>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === 'reset' ? t('admin.account.resetTitle', { username: pending.user.username }) : t('admin.account.roleTitle', { username: pending?.user.username ?? '' })}
        confirmLabel={pending?.kind === 'reset' ? t('admin.account.reset') : t('admin.account.changeRole')}
        tone="danger"
        busy={action.isPending}
        onConfirm={() => pending && action.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending?.kind === 'reset' ? (
          <p>{t('admin.account.resetBody')}</p>
        ) : (
          <p>{t('admin.account.roleBody', { from: labelsWith(t).role(pending?.user.role ?? ''), to: labelsWith(t).role(newRole) })}</p>
        )}
      </ConfirmDialog>
    </Card>
  );
}
