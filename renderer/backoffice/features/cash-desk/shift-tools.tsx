import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { CashDeposit, ShiftTotal } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { formatDateTime, formatMoney, formatTime } from '../common/format';
import { listPager, useListPages } from '../common/paging';
import { Card, DataTable, Empty, Money, Mono, QueryState, StatusBadge, type SortState } from '../../../ui/blocks';
import { depositQueries } from '../review/deposits.queries';
import { DEPOSIT_STATUS_LABELS } from '../../../../shared/labels';
import { shiftQueries } from './cash-slips.queries';



/** The teller's own recent deposits: when, slip, amount, review state (with a rejection's reason), and a reprint. */
export function RecentDeposits({ onReprint }: { onReprint: (d: CashDeposit) => void }) {
  const api = useApi();
  const [sort, setSort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const pages = useListPages(8);
  const recent = useQuery(depositQueries.list(api, { limit: 8, offset: pages.offset, cursor: pages.cursor, sort }));
  return (
    <Card title="Your recent deposits" className="bo-card--flush" testId="recent-deposits">
      <QueryState query={recent} isEmpty={(d) => d.deposits.length === 0} empty={<Empty title="No deposits yet">Deposits you record appear here with their review status.</Empty>}>
        {(d) => (
          <DataTable
            caption="Your recent deposits"
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
                header: 'Time · slip',
                sortKey: 'created_at',
                nowrap: true,
                render: (r) => (
                  <>
                    <time dateTime={r.created_at} title={formatDateTime(r.created_at, { seconds: true })} className="cd-time">
                      {formatTime(r.created_at)}
                    </time>
                    <div>
                      <Mono>{r.slip_reference}</Mono>
                    </div>
                  </>
                ),
              },
              { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', nowrap: true, render: (r) => <Money minor={r.amount_minor} currency={r.currency} /> },
              {
                key: 'status',
                header: 'Status',
                sortKey: 'status',
                render: (r) => (
                  <>
                    <StatusBadge status={r.status} kind="deposit" />
                    {r.status === 'rejected' && r.review_reason && (
                      <div className="cd-reason" data-testid="rejection-reason">
                        {r.review_reason}
                      </div>
                    )}
                  </>
                ),
              },
              {
                key: 'reprint',
                header: 'Receipt',
                align: 'right',
                nowrap: true,
                render: (r) => (
                  <button type="button" className="cd-link" onClick={() => onReprint(r)} aria-label={`Reprint the receipt of slip ${r.slip_reference}`}>
                    Reprint
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
  return (
    <Card
      title="Today's cash-up"
      testId="shift-total"
      actions={
        shift.data && (
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onPrint(shift.data)}>
            Print cash-up
          </button>
        )
      }
    >
      <QueryState query={shift}>
        {(s) => (
          <div className={`cd-shift${printing ? ' cd-printable' : ''}`}>
            <div className="cd-shift__head">
              <strong>Cash-up · {s.teller.username}</strong>
              <span className="bo-muted">
                {new Date(`${s.date}T12:00:00`).toLocaleDateString(undefined, { dateStyle: 'full' })} ({s.time_zone})
              </span>
            </div>
            {s.totals.length === 0 ? (
              <p className="bo-muted">No deposits recorded today.</p>
            ) : (
              <table className="cd-shift__table">
                <caption className="bo-visually-hidden">Deposits recorded today by review state</caption>
                <thead>
                  <tr>
                    <th scope="col">State</th>
                    <th scope="col" className="num">
                      Count
                    </th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {s.by_status.map((r) => (
                    <tr key={`${r.status}-${r.currency}`} data-testid={`shift-${r.status}`}>
                      <td>{DEPOSIT_STATUS_LABELS[r.status]}</td>
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
                          <th scope="row">All recorded</th>
                          <td className="num">{tot.count}</td>
                          <td className="num">{formatMoney(tot.amount_minor, tot.currency)}</td>
                        </tr>
                        <tr data-testid="shift-drawer-row">
                          <th scope="row">In the drawer</th>
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
              Printed {formatDateTime(s.generated_at)}. Rejected deposits are not in the drawer: their cash goes back to the payer.
            </p>
            <div className="cd-sign cd-sign--print-only">
              <div>
                <span className="cd-sign__line" />
                Teller
              </div>
              <div>
                <span className="cd-sign__line" />
                Supervisor
              </div>
            </div>
          </div>
        )}
      </QueryState>
    </Card>
  );
}
