import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { CashDeposit, ShiftTotal } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { formatDateTime, formatDay, formatMoney, formatTime } from '../common/format';
import { listPager, useListPages } from '../common/paging';
import { Card, DataTable, Empty, Money, Mono, QueryState, StatusBadge, type SortState } from '../../../ui/blocks';
import { depositQueries } from '../review/deposits.queries';
import { useLabels } from '../common/labels';
import { useT } from '../../../ui/i18n';
import { shiftQueries } from './cash-slips.queries';
import { SignatureLines } from './deposit-receipt';

/** The teller's own recent deposits: when, slip, amount, review state (with a rejection's reason), and a reprint. */
export function RecentDeposits({ onReprint }: { onReprint: (d: CashDeposit) => void }) {
  const api = useApi();
  const [sort, setSort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const pages = useListPages(8);
  const t = useT();
  const recent = useQuery(depositQueries.list(api, { limit: 8, offset: pages.offset, cursor: pages.cursor, sort }));
  return (
    <Card title={t('cashDesk.recent.title')} className="bo-card--flush" testId="recent-deposits">
      <QueryState query={recent} isEmpty={(d) => d.deposits.length === 0} empty={<Empty title={t('cashDesk.recent.emptyTitle')}>{t('cashDesk.recent.emptyBody')}</Empty>}>
        {(d) => (
          <DataTable
            caption={t('cashDesk.recent.title')}
            rows={d.deposits}
            rowKey={(r) => r.id}
            sort={sort}
            onSort={(s) => {
              setSort(s);
              pages.restart();
            }}
            page={d.total > 8 ? listPager(pages, { total: d.total, capped: d.total_capped, rows: d.deposits.length, limit: 8 }, recent.isPlaceholderData ? null : d.next_cursor) : undefined}
            columns={[
              {
                // Time first (what a teller asks "which one was it?" by), the slip reference under it: the column fits beside the desk.
                key: 'time',
                header: t('cashDesk.recent.timeSlip'),
                sortKey: 'created_at',
                nowrap: true,
                render: (r) => (
                  <>
                    <time dateTime={r.created_at} translate="no" title={formatDateTime(r.created_at, { seconds: true })} className="cd-time">
                      {formatTime(r.created_at)}
                    </time>
                    <div>
                      <Mono>{r.slip_reference}</Mono>
                    </div>
                  </>
                ),
              },
              { key: 'amount', header: t('cashDesk.recent.amount'), sortKey: 'amount_minor', align: 'right', nowrap: true, render: (r) => <Money minor={r.amount_minor} currency={r.currency} /> },
              {
                key: 'status',
                header: t('cashDesk.recent.status'),
                sortKey: 'status',
                render: (r) => (
                  <>
                    <StatusBadge status={r.status} kind="deposit" />
                    {r.status === 'rejected' && r.review_reason && (
                      <div className="cd-reason" data-testid="rejection-reason" translate="no">
                        {r.review_reason}
                      </div>
                    )}
                  </>
                ),
              },
              {
                key: 'reprint',
                header: t('cashDesk.recent.receipt'),
                align: 'right',
                nowrap: true,
                render: (r) => (
                  <button type="button" className="cd-link" onClick={() => onReprint(r)} aria-label={t('cashDesk.recent.reprintSlip', { slip: r.slip_reference })}>
                    {t('cashDesk.recent.reprint')}
                  </button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
    </Card>
  );
}

/** Today's cash-up: count and sum of my deposits by review state, printable for the end of the shift. */
export function ShiftTotalCard({ printing, onPrint }: { printing: boolean; onPrint: (t: ShiftTotal) => void }) {
  const api = useApi();
  const shift = useQuery(shiftQueries.today(api));
  const t = useT();
  const labels = useLabels();
  return (
    <Card
      title={t('cashDesk.shift.title')}
      testId="shift-total"
      actions={
        shift.data && (
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onPrint(shift.data)}>
            {t('cashDesk.shift.print')}
          </button>
        )
      }
    >
      <QueryState query={shift}>
        {(s) => (
          <div className={`cd-shift${printing ? ' cd-printable' : ''}`}>
            <div className="cd-shift__head">
              <strong>{t('cashDesk.shift.head', { user: () => <span key="u" translate="no">{s.teller.username}</span> })}</strong>
              <span className="bo-muted">
                <time dateTime={s.date}>{formatDay(s.date)}</time> <span translate="no">({s.time_zone})</span>
              </span>
            </div>
            {s.totals.length === 0 ? (
              <p className="bo-muted">{t('cashDesk.shift.none')}</p>
            ) : (
              <table className="cd-shift__table">
                <caption className="bo-visually-hidden">{t('cashDesk.shift.caption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('cashDesk.shift.state')}</th>
                    <th scope="col" className="num">
                      {t('cashDesk.shift.count')}
                    </th>
                    <th scope="col" className="num">
                      {t('cashDesk.shift.amount')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {s.by_status.map((r) => (
                    <tr key={`${r.status}-${r.currency}`} data-testid={`shift-${r.status}`}>
                      <td>{labels.depositStatus(r.status)}</td>
                      <td className="num">{r.count}</td>
                      <td className="num">{formatMoney(r.amount_minor, r.currency)}</td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  {s.totals.map((tot) => {
                    // Rejected cash goes back to the payer, so it is not part of what the drawer holds.
                    const rejected = s.by_status.find((r) => r.status === 'rejected' && r.currency === tot.currency);
                    return (
                      <Fragment key={tot.currency}>
                        <tr data-testid="shift-total-row">
                          <th scope="row">{t('cashDesk.shift.allRecorded')}</th>
                          <td className="num">{tot.count}</td>
                          <td className="num">{formatMoney(tot.amount_minor, tot.currency)}</td>
                        </tr>
                        <tr data-testid="shift-drawer-row">
                          <th scope="row">{t('cashDesk.shift.inDrawer')}</th>
                          <td className="num">{tot.count - (rejected?.count ?? 0)}</td>
                          <td className="num">{formatMoney(tot.amount_minor - (rejected?.amount_minor ?? 0), tot.currency)}</td>
                        </tr>
                      </Fragment>
                    );
                  })}
                </tfoot>
              </table>
            )}
            <p className="cd-shift__foot bo-muted">
              {t('cashDesk.shift.foot', {
                at: () => (
                  <time key="g" dateTime={s.generated_at}>
                    {formatDateTime(s.generated_at)}
                  </time>
                ),
              })}
            </p>
            <SignatureLines labels={[t('cashDesk.shift.teller'), t('cashDesk.shift.supervisor')]} printOnly />
          </div>
        )}
      </QueryState>
    </Card>
  );
}
