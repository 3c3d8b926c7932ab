import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { EXCEPTION_KIND_LABELS, EXCEPTION_KINDS, type ExceptionItem, type ExceptionKind, type ExceptionStatus, type FinanceException } from '../../../../shared/schemas/finance-exceptions';
import { EXCEPTION_STATUS_LABELS } from '../../../../shared/labels';
import { ConfirmDialog } from '../common/confirm-dialog';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { formatDateTime, formatMoney, railLabel } from '../common/format';
import { Card, Empty, Mono, PageTitle, Pagination, QueryState, SelectField, StatusBadge, Tabs } from '../../../ui/blocks';
import { financeQueries } from './finance.queries';
import { exceptionQueries, exceptionsCsvPath, reviewException } from './exceptions.queries';
import './exceptions.css';

const FINANCE = ROUTES.finance.path;

/** What a clerk does about each kind: shown under the list and as the row's hint. */
const KIND_HELP: Record<ExceptionKind, string> = {
  overpaid: 'The invoice collected more than it billed. Refund the excess or keep it as credit.',
  paid_twice: 'A new session was paid after the invoice was already fully paid. Usually a duplicate: refund it.',
  concurrent_sessions_paid: 'Two sessions were open for the invoice at the same time and both were paid. Refund one.',
  amount_differs: 'A payment smaller than what was still due: the amount differs from the billed total and a balance is outstanding. Follow up with the payer.',
};
const KIND_TONE: Record<ExceptionKind, string> = { overpaid: 'failed', paid_twice: 'failed', concurrent_sessions_paid: 'failed', amount_differs: 'pending' };

/**
 * Finance exceptions as work items: one per invoice that does not reconcile (its kinds merged),
 * open until someone resolves or ignores it with a note; who and when are shown, and a later
 * payment on the invoice opens it again. Each lists its amounts and every session involved
 * (each a link to its detail and timeline); the CSV export has every exception with its state.
 */
export function ExceptionsPage() {
  const errorMessage = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const { session } = useSession();
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery(financeQueries.merchants(api));
  const [picked, setPicked] = useState('');
  useEffect(() => {
    if (isAdmin && !picked && merchants.data?.merchants[0]) setPicked(merchants.data.merchants[0].id);
  }, [isAdmin, picked, merchants.data]);
  const merchantId = isAdmin ? picked || undefined : undefined;
  const merchantName = isAdmin ? merchants.data?.merchants.find((m) => m.id === picked)?.name : merchants.data?.merchants[0]?.name;

  // `?invoice=REF` (the invoice screen's link): that invoice's item, whatever its state.
  const [invoice, setInvoice] = useState(() => new URLSearchParams(window.location.search).get('invoice') ?? '');
  const [tab, setTab] = useState<StatusTab>(() => (new URLSearchParams(window.location.search).get('invoice') ? 'all' : 'open'));
  const [kind, setKind] = useState<ExceptionKind | ''>('');
  const [offset, setOffset] = useState(0);
  const limit = 25;
  const list = useQuery({ ...exceptionQueries.items(api, merchantId, { status: tab, kind, invoice, limit, offset }), enabled: !isAdmin || !!merchantId });
  const counts = list.data?.counts;
  const label = (k: StatusTab) => {
    const n = counts ? (k === 'all' ? counts.open + counts.resolved + counts.ignored : counts[k]) : undefined;
    return `${k === 'all' ? 'All' : EXCEPTION_STATUS_LABELS[k]}${n === undefined ? '' : ` (${n})`}`;
  };

  const [acting, setActing] = useState<{ item: ExceptionItem; status: ExceptionStatus } | null>(null);
  const [note, setNote] = useState('');
  const [noteError, setNoteError] = useState<string | undefined>();
  const [done, setDone] = useState<string | null>(null);
  const review = useMutation({
    mutationFn: (a: { item: ExceptionItem; status: ExceptionStatus; note: string }) => reviewException(api, merchantId, a.item.invoice_ref, a.status, a.note),
    onSuccess: (r) => {
      setActing(null);
      setNote('');
      setDone(`Invoice ${r.invoice_ref}: ${EXCEPTION_STATUS_LABELS[r.status].toLowerCase()}.`);
      void queryClient.invalidateQueries({ queryKey: ['exceptions', api.userId] });
      void queryClient.invalidateQueries({ queryKey: ['work-counts', api.userId] });
    },
    onError: (err) => setNoteError(errorMessage(err, 'note')),
  });
  const confirm = () => {
    if (!acting) return;
    if (note.trim() === '') {
      setNoteError('Write a note: what was done, or why it needs nothing');
      return;
    }
    review.mutate({ ...acting, note: note.trim() });
  };

  const [exportState, setExportState] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const blob = await api.download(exceptionsCsvPath(merchantId, kind));
      const rows = Math.max(0, (await blob.text()).trim().split('\n').length - 1);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `exceptions${kind ? `-${kind}` : ''}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setExportState({ tone: 'success', text: `Downloaded ${rows} exception${rows === 1 ? '' : 's'}.` });
    } catch (err) {
      setExportState({ tone: 'error', text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bo-page">
      <PageTitle
        title="Exceptions"
        subtitle={`Payments that do not reconcile with their invoice${merchantName ? ` · ${merchantName}` : ''}`}
        actions={
          <>
            {isAdmin && merchants.data && (
              <SelectField label="Merchant" value={picked} onChange={(v) => (setPicked(v), setOffset(0))} options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))} />
            )}
            <SelectField
              label="Kind"
              value={kind}
              onChange={(v) => (setKind(v as ExceptionKind | ''), setOffset(0))}
              options={[{ value: '', label: 'Every kind' }, ...EXCEPTION_KINDS.map((k) => ({ value: k, label: EXCEPTION_KIND_LABELS[k] }))]}
            />
            <button type="button" className="bo-btn bo-btn--secondary bo-export-btn" disabled={busy || (isAdmin && !merchantId)} onClick={() => void download()}>
              {busy ? 'Preparing…' : 'Export CSV'}
            </button>
          </>
        }
      />
      {exportState && (
        <div className={`bo-alert bo-alert--${exportState.tone}`} role={exportState.tone === 'error' ? 'alert' : 'status'}>
          {exportState.text}
        </div>
      )}
      {done && (
        <div className="bo-alert bo-alert--success" role="status">
          {done}
        </div>
      )}
      {invoice && (
        <div className="bo-alert bo-alert--info" role="status">
          Showing invoice <Mono>{invoice}</Mono> only.{' '}
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => (setInvoice(''), window.history.replaceState(null, '', window.location.pathname))}>
            Show every invoice
          </button>
        </div>
      )}
      <Tabs tabs={STATUS_TABS.map((k) => ({ key: k, label: label(k) }))} current={tab} onChange={(k) => (setTab(k), setOffset(0))} />
      {isAdmin && !merchantId ? (
        merchants.isPending ? null : <Card><Empty title="No merchant yet">Create a merchant integration first (Administration).</Empty></Card>
      ) : (
        <div data-testid="exceptions-list">
          <QueryState
            query={list}
            isEmpty={(d) => d.total === 0}
            empty={
              <Card>
                <Empty title={tab === 'open' ? 'Nothing to work on' : `No ${label(tab).replace(/ \(\d+\)$/, '').toLowerCase()} exceptions`}>
                  {tab === 'open' ? 'Every payment matches its invoice, or has been dealt with.' : 'Nothing here for this filter.'}
                </Empty>
              </Card>
            }
          >
            {(d) => (
              <>
                <ul className="bo-exc-items">
                  {d.items.map((item) => (
                    <li key={item.invoice_ref}>
                      <ItemCard item={item} onAct={(status) => (setActing({ item, status }), setNote(''), setNoteError(undefined), setDone(null))} />
                    </li>
                  ))}
                </ul>
                <Pagination total={d.total} limit={limit} offset={offset} onChange={setOffset} />
              </>
            )}
          </QueryState>
        </div>
      )}
      <ConfirmDialog
        open={acting !== null}
        title={acting ? `${ACTION_LABEL[acting.status]}: invoice ${acting.item.invoice_ref}` : ''}
        confirmLabel={acting ? ACTION_LABEL[acting.status] : ''}
        busy={review.isPending}
        onConfirm={confirm}
        onCancel={() => setActing(null)}
      >
        <label className="bo-filter__label" htmlFor="exc-note">
          Note (required)
        </label>
        <textarea
          id="exc-note"
          className="bo-input bo-exc-note"
          rows={3}
          value={note}
          aria-invalid={noteError ? true : undefined}
          aria-describedby={noteError ? 'exc-note-error' : undefined}
          onChange={(e) => (setNote(e.target.value), setNoteError(undefined))}
        />
        {noteError && (
          <span id="exc-note-error" className="bo-filter__error">
            {noteError}
          </span>
        )}
      </ConfirmDialog>
      <Card title="What is listed">
        <dl className="bo-exc-help">
          {EXCEPTION_KINDS.map((k) => (
            <div key={k}>
              <dt>{EXCEPTION_KIND_LABELS[k]}</dt>
              <dd>{KIND_HELP[k]}</dd>
            </div>
          ))}
        </dl>
        <p className="bo-muted">
          Amounts are the sessions’ amounts, payer-borne fees excluded. The list is computed from the payments themselves, so it is always current; a resolved or ignored invoice opens again
          when another payment arrives on it.
        </p>
      </Card>
    </div>
  );
}

type StatusTab = ExceptionStatus | 'all';
const STATUS_TABS: StatusTab[] = ['open', 'resolved', 'ignored', 'all'];
const ACTION_LABEL: Record<ExceptionStatus, string> = { resolved: 'Resolve', ignored: 'Ignore', open: 'Reopen' };

function ItemCard({ item, onAct }: { item: ExceptionItem; onAct: (status: ExceptionStatus) => void }) {
  const m = (n: number) => formatMoney(n, item.currency);
  const diff = item.difference_minor;
  const sessions = new Map<string, FinanceException['sessions'][number]>();
  for (const e of item.exceptions) for (const s of e.sessions) if (!sessions.has(s.id) || s.trigger) sessions.set(s.id, s);
  return (
    <Card className="bo-exc-item" testId={`exception-${item.invoice_ref}`}>
      <div className="bo-exc-item__head">
        <h2 className="bo-exc-item__title">
          Invoice{' '}
          <Link to={`${FINANCE}/invoices/${encodeURIComponent(item.invoice_ref)}`}>
            <Mono>{item.invoice_ref}</Mono>
          </Link>
        </h2>
        <StatusBadge status={item.status === 'open' ? 'pending' : item.status === 'resolved' ? 'success' : 'inactive'} label={EXCEPTION_STATUS_LABELS[item.status]} />
        {item.kinds.map((k) => (
          <StatusBadge key={k} status={KIND_TONE[k]} label={EXCEPTION_KIND_LABELS[k]} />
        ))}
        <span className="bo-muted bo-exc-item__when">Detected {formatDateTime(item.detected_at)}</span>
      </div>
      {item.summaries.map((s) => (
        <p key={s} className="bo-exc-item__summary">
          {s}
        </p>
      ))}
      <div className="bo-exc-item__body">
        <dl className="bo-exc-amounts">
          <dt>Billed</dt>
          <dd>{item.billed_minor > 0 ? m(item.billed_minor) : 'Nothing billed'}</dd>
          <dt>Collected</dt>
          <dd>
            {m(item.collected_minor)} in {item.payments} payment{item.payments === 1 ? '' : 's'}
          </dd>
          {item.billed_minor > 0 && (
            <>
              <dt>{diff > 0 ? 'Over-paid' : diff < 0 ? 'Outstanding' : 'Balance'}</dt>
              <dd className={diff > 0 ? 'bo-exc-over' : undefined}>{m(Math.abs(diff))}</dd>
            </>
          )}
        </dl>
        <div>
          <p className="bo-exc-item__label">Sessions involved</p>
          <ul className="bo-exc-sessions">
            {[...sessions.values()].map((s) => (
              <li key={s.id}>
                <Link to={`${FINANCE}/sessions/${encodeURIComponent(s.id)}`}>
                  {formatMoney(s.amount_minor, item.currency)} · {railLabel(s.paid_rail)}
                </Link>{' '}
                <span className="bo-muted">paid {formatDateTime(s.finalized_at)}</span>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <div className="bo-exc-item__review">
        {item.reviewed_at ? (
          <p className="bo-exc-item__note">
            {item.reopened ? 'Open again: a payment arrived after it was dealt with. ' : ''}
            Last note by {item.reviewed_by}, {formatDateTime(item.reviewed_at)}: “{item.note}”
          </p>
        ) : (
          <p className="bo-muted bo-exc-item__note">Nobody has worked on this yet.</p>
        )}
        <div className="bo-exc-item__actions">
          {item.status === 'open' ? (
            <>
              <button type="button" className="bo-btn bo-btn--primary bo-btn--sm" onClick={() => onAct('resolved')}>
                Resolve…
              </button>
              <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onAct('ignored')}>
                Ignore…
              </button>
            </>
          ) : (
            <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onAct('open')}>
              Reopen…
            </button>
          )}
        </div>
      </div>
    </Card>
  );
}
