import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { auditActionLabel, targetTypeLabel } from '../../../../shared/labels';
import { AUDIT_ACTIONS } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { NoMatch } from '../common/filter-hint';
import { dayEndIso, dayStartIso, formatDateTime } from '../common/format';
import { listPager, useListPages } from '../common/paging';
import { Card, DataTable, Empty, InputField, PageTitle, QueryState, SelectField, type SortState } from '../../../ui/blocks';
import { AuditDiff } from './audit-diff';
import { auditCsvPath, auditQueries } from './audit.queries';

/** The audit trail: read-only, newest first, in words. Nothing here (or anywhere) can change an entry. */
export function AuditPage() {
  const errorText = useErrorText();
  const api = useApi();
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'at', dir: 'desc' });
  const [exportNote, setExportNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const limit = 25;
  const pages = useListPages(limit);
  const filter = { action, actor: actor.trim(), from: dayStartIso(fromDay), to: dayEndIso(toDay) };
  const list = useQuery(auditQueries.list(api, { ...filter, sort: sort.key, dir: sort.dir, limit, offset: pages.offset, cursor: pages.cursor }));
  const reset = (set: (v: string) => void) => (v: string) => (set(v), pages.restart());
  const filtered = action || actor || fromDay || toDay;
  const download = async () => {
    try {
      const blob = await api.download(auditCsvPath(filter));
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `audit-trail${fromDay ? `-from-${fromDay}` : ''}${toDay ? `-to-${toDay}` : ''}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setExportNote({ tone: 'success', text: 'Downloaded the entries shown by these filters (times in UTC in the file).' });
    } catch (err) {
      setExportNote({ tone: 'error', text: errorText(err, 'the dates') });
    }
  };
  return (
    <div className="bo-page">
      <PageTitle
        title="Audit trail"
        subtitle="Every staff action: who, what, when (your local time), and what changed. Entries cannot be edited or deleted."
        actions={
          <button type="button" className="bo-btn bo-btn--secondary" onClick={() => void download()}>
            Export CSV
          </button>
        }
      />
      {exportNote && (
        <div className={`bo-alert bo-alert--${exportNote.tone}`} role={exportNote.tone === 'error' ? 'alert' : 'status'}>
          {exportNote.text}
        </div>
      )}
      <Card className="bo-card--flush" testId="audit-list">
        <div className="bo-filters">
          <SelectField label="Action" value={action} onChange={reset(setAction)} options={[{ value: '', label: 'All actions' }, ...AUDIT_ACTIONS.map((a) => ({ value: a, label: auditActionLabel(a) }))]} />
          <InputField label="Staff member" value={actor} onChange={reset(setActor)} placeholder="Username" />
          <InputField label="From" type="date" value={fromDay} onChange={reset(setFromDay)} />
          <InputField label="To" type="date" value={toDay} onChange={reset(setToDay)} />
        </div>
        <QueryState query={list} isEmpty={(d) => d.total === 0} empty={filtered ? <NoMatch /> : <Empty title="No entries yet" />}>
          {(d) => (
            <DataTable
              caption="Audit entries"
              testId="audit-table"
              rows={d.entries}
              rowKey={(e) => e.id}
              sort={sort}
              onSort={(s) => {
                setSort(s);
                pages.restart();
              }}
              page={listPager(pages, { total: d.total, capped: d.total_capped, rows: d.entries.length, limit }, list.isPlaceholderData ? null : d.next_cursor)}
              columns={[
                { key: 'at', header: 'When', sortKey: 'at', nowrap: true, render: (e) => <time dateTime={e.at}>{formatDateTime(e.at, { seconds: true })}</time> },
                {
                  key: 'who',
                  header: 'Who',
                  sortKey: 'actor',
                  render: (e) => (
                    <>
                      <div>{e.actor.username}</div>
                      <div className="bo-muted">
                        <span className="bo-cap">{e.actor.role}</span>
                        {e.ip ? ` · ${e.ip}` : ''}
                      </div>
                    </>
                  ),
                },
                { key: 'what', header: 'Action', sortKey: 'action', render: (e) => <span title={e.action}>{auditActionLabel(e.action)}</span> },
                {
                  key: 'target',
                  header: 'Target',
                  sortKey: 'target_type',
                  render: (e) => (
                    <>
                      <div>{e.target_name ?? (e.target_id ? <span className="bo-muted">{targetTypeLabel(e.target_type)} (no longer exists)</span> : targetTypeLabel(e.target_type))}</div>
                      {e.target_name && <div className="bo-muted">{targetTypeLabel(e.target_type)}</div>}
                    </>
                  ),
                },
                { key: 'change', header: 'What changed', render: (e) => <AuditDiff entry={e} /> },
              ]}
            />
          )}
        </QueryState>
      </Card>
    </div>
  );
}
