import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useT, type T } from '../../../ui/i18n';
import { AUDIT_ACTIONS } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { useErrorText } from '../common/error-text';
import { NoMatch } from '../common/filter-hint';
import { dayEndIso, dayStartIso, formatDateTime } from '../common/format';
import { listPager, useListPages } from '../common/paging';
import { Card, DataTable, Empty, InputField, PageTitle, QueryState, SelectField, type SortState } from '../../../ui/blocks';
import { AuditDiff } from './audit-diff';
import { auditActionText, auditTargetText, codeWords } from './audit-labels';
import { auditCsvPath, auditQueries } from './audit.queries';

/** The audit trail: read-only, newest first, in words. Nothing here (or anywhere) can change an entry. */
export function AuditPage() {
  const errorText = useErrorText();
  const t = useT();
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
      setExportNote({ tone: 'success', text: t('audit.exported') });
    } catch (err) {
      setExportNote({ tone: 'error', text: errorText(err, 'the dates') });
    }
  };
  return (
    <div className="bo-page">
      <PageTitle
        title={t('audit.title')}
        subtitle={t('audit.subtitle')}
        actions={
          <button type="button" className="bo-btn bo-btn--secondary" onClick={() => void download()}>
            {t('audit.export')}
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
          <SelectField label={t('audit.action')} value={action} onChange={reset(setAction)} options={[{ value: '', label: t('audit.allActions') }, ...AUDIT_ACTIONS.map((a) => ({ value: a, label: auditActionText(t, a) ?? codeWords(a) }))]} />
          <InputField label={t('audit.staffMember')} value={actor} onChange={reset(setActor)} placeholder={t('audit.usernamePlaceholder')} />
          <InputField label={t('audit.from')} type="date" value={fromDay} onChange={reset(setFromDay)} />
          <InputField label={t('audit.to')} type="date" value={toDay} onChange={reset(setToDay)} />
        </div>
        <QueryState query={list} isEmpty={(d) => d.total === 0} empty={filtered ? <NoMatch /> : <Empty title={t('audit.empty')} />}>
          {(d) => (
            <DataTable
              caption={t('audit.caption')}
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
                { key: 'at', header: t('audit.when'), sortKey: 'at', nowrap: true, render: (e) => <time dateTime={e.at}>{formatDateTime(e.at, { seconds: true })}</time> },
                {
                  key: 'who',
                  header: t('audit.who'),
                  sortKey: 'actor',
                  render: (e) => (
                    <>
                      <div translate="no">{e.actor.username}</div>
                      <div className="bo-muted">
                        <span className="bo-cap">{labelsWith(t).role(e.actor.role)}</span>
                        {e.ip ? <span translate="no">{` · ${e.ip}`}</span> : ''}
                      </div>
                    </>
                  ),
                },
                { key: 'what', header: t('audit.action'), sortKey: 'action', render: (e) => <ActionText action={e.action} t={t} /> },
                {
                  key: 'target',
                  header: t('audit.target'),
                  sortKey: 'target_type',
                  render: (e) => (
                    <>
                      <div>
                        {e.target_name ? (
                          <span translate="no">{e.target_name}</span>
                        ) : e.target_id ? (
                          <span className="bo-muted">{t('audit.goneTarget', { type: <TargetText type={e.target_type} t={t} /> })}</span>
                        ) : (
                          <TargetText type={e.target_type} t={t} />
                        )}
                      </div>
                      {e.target_name && (
                        <div className="bo-muted">
                          <TargetText type={e.target_type} t={t} />
                        </div>
                      )}
                    </>
                  ),
                },
                { key: 'change', header: t('audit.whatChanged'), render: (e) => <AuditDiff entry={e} /> },
              ]}
            />
          )}
        </QueryState>
      </Card>
    </div>
  );
}

/** An action in words; its code when this screen has no words for it (a newer server). */
function ActionText({ action, t }: { action: string; t: T }) {
  const text = auditActionText(t, action);
  return text ? <span data-action={action}>{text}</span> : <span translate="no">{codeWords(action)}</span>;
}

function TargetText({ type, t }: { type: string; t: T }) {
  const text = auditTargetText(t, type);
  return text ? <>{text}</> : <span translate="no">{codeWords(type)}</span>;
}
