import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { AUDIT_ACTIONS, type AuditEntry } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, InputField, Mono, PageTitle, QueryState, SelectField, ShortId, type SortState } from '../common/ui';
import { auditQueries } from './audit.queries';


function changes(e: AuditEntry): string {
  const show = (v: unknown) =>
    v && typeof v === 'object'
      ? Object.entries(v as Record<string, unknown>)
          .map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`)
          .join(', ')
      : '';
  const before = show(e.before);
  const after = show(e.after);
  return before ? `${before}  →  ${after}` : after;
}

/** The audit trail: read-only, newest first. Nothing here (or anywhere) can change an entry. */
export function AuditPage() {
  const api = useApi();
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState<SortState>({ key: 'at', dir: 'desc' });
  const limit = 25;
  const list = useQuery(auditQueries.list(api, { action, actor: actor.trim(), sort: sort.key, dir: sort.dir, limit, offset }));
  return (
    <div className="bo-page">
      <PageTitle title="Audit trail" subtitle="Every staff action: who, what, when, and the state before and after. Entries cannot be edited or deleted." />
      <Card className="bo-card--flush" testId="audit-list">
        <div className="bo-filters">
          <SelectField label="Action" value={action} onChange={(v) => (setAction(v), setOffset(0))} options={[{ value: '', label: 'All actions' }, ...AUDIT_ACTIONS.map((a) => ({ value: a, label: a }))]} />
          <InputField label="Staff member" value={actor} onChange={(v) => (setActor(v), setOffset(0))} placeholder="Username" />
        </div>
        <QueryState query={list} isEmpty={(d) => d.total === 0} empty={<Empty title="No entries match" />}>
          {(d) => (
            <>
              <DataTable
                caption="Audit entries"
                testId="audit-table"
                rows={d.entries}
                rowKey={(e) => e.id}
                sort={sort}
                onSort={(s) => {
                  setSort(s);
                  setOffset(0);
                }}
                page={{ total: d.total, limit, offset, onChange: setOffset }}
                columns={[
                  { key: 'at', header: 'When', sortKey: 'at', nowrap: true, render: (e) => formatDateTime(e.at, { seconds: true }) },
                  {
                    key: 'who',
                    header: 'Who',
                    sortKey: 'actor',
                    render: (e) => (
                      <>
                        <div>{e.actor.username}</div>
                        <div className="bo-muted">
                          {e.actor.role}
                          {e.ip ? ` · ${e.ip}` : ''}
                        </div>
                      </>
                    ),
                  },
                  { key: 'what', header: 'Action', sortKey: 'action', render: (e) => <Mono>{e.action}</Mono> },
                  { key: 'target', header: 'Target', sortKey: 'target_type', render: (e) => (e.target_id ? <ShortId value={e.target_id} keep={8} /> : <span className="bo-muted">{e.target_type}</span>) },
                  { key: 'change', header: 'Before → after', render: (e) => <span className="bo-audit-change">{changes(e)}</span> },
                ]}
              />
            </>
          )}
        </QueryState>
      </Card>
    </div>
  );
}
