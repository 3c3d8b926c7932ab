import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { EXCEPTION_KINDS, type ExceptionItem, type ExceptionKind, type ExceptionStatus } from '../../../../shared/schemas/finance-exceptions';
import { useT, type T } from '../../../ui/i18n';
import { ConfirmDialog } from '../common/confirm-dialog';
import { useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { Card, Empty, Mono, PageTitle, Pagination, QueryState, SelectField, Tabs } from '../../../ui/blocks';
import { financeQueries } from './finance.queries';
import { exceptionQueries, exceptionsCsvPath, reviewException } from './exceptions.queries';
import { ItemCard, kindLabel, statusLabel } from './exception-item';
import { ShortcutsButton, ShortcutsHelp, useShortcuts, type Shortcut } from '../common/shortcuts';
import './exceptions.css';

const FINANCE = ROUTES.finance.path;

type ExceptionKey = 'next' | 'previous' | 'resolve' | 'ignore' | 'open' | 'help';
/** The exceptions list's single-key shortcuts (the rules of features/common/shortcuts.tsx), as its help dialog lists them. */
const EXCEPTION_SHORTCUTS: ReadonlyArray<Shortcut<ExceptionKey>> = [
  { keys: ['j'], action: 'next', what: 'exceptionKeys.next' },
  { keys: ['k'], action: 'previous', what: 'exceptionKeys.previous' },
  { keys: ['r'], action: 'resolve', what: 'exceptionKeys.resolve' },
  { keys: ['i'], action: 'ignore', what: 'exceptionKeys.ignore' },
  { keys: ['o'], action: 'open', what: 'exceptionKeys.open' },
  { keys: ['?'], action: 'help', what: 'shortcuts.help' },
];

/** What a clerk does about each kind: shown under the list. */
const kindHelp = (t: T, k: ExceptionKind): string =>
  ({
    overpaid: t('exceptions.help.overpaid'),
    paid_twice: t('exceptions.help.paid_twice'),
    concurrent_sessions_paid: t('exceptions.help.concurrent_sessions_paid'),
    amount_differs: t('exceptions.help.amount_differs'),
  })[k];
const actionLabel = (t: T, s: ExceptionStatus): string =>
  ({ resolved: t('exceptions.action.resolved'), ignored: t('exceptions.action.ignored'), open: t('exceptions.action.open') })[s];

/**
 * Finance exceptions as work items: one per invoice that does not reconcile (its kinds merged),
 * open until someone resolves or ignores it with a note; who and when are shown, and a later
 * payment on the invoice opens it again. Each lists its amounts and every session involved
 * (each a link to its detail and timeline); the CSV export has every exception with its state.
 */
export function ExceptionsPage() {
  const errorMessage = useErrorText();
  const t = useT();
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
    const name = k === 'all' ? t('exceptions.tab.all') : statusLabel(t, k);
    return n === undefined ? name : t('exceptions.tabCount', { label: name, count: n });
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
      setDone(t('exceptions.done', { invoice: r.invoice_ref, status: r.status }));
      void queryClient.invalidateQueries({ queryKey: ['exceptions', api.userId] });
      void queryClient.invalidateQueries({ queryKey: ['work-counts', api.userId] });
    },
    onError: (err) => setNoteError(errorMessage(err, 'note')),
  });
  const confirm = () => {
    if (!acting) return;
    if (note.trim() === '') {
      setNoteError(t('exceptions.noteRequired'));
      return;
    }
    review.mutate({ ...acting, note: note.trim() });
  };

  // The note is what the dialog needs: it takes the keyboard once the dialog is open (after the
  // dialog's own focus on its confirm button).
  useEffect(() => {
    if (acting) document.getElementById('exc-note')?.focus();
  }, [acting]);

  // j/k move through the items (focus on the item's first action: Resolve, or Reopen); r, i and o
  // act on the item holding focus, the first when none does; ? opens the shortcuts' help.
  const { navigate } = useRouter();
  const [help, setHelp] = useState(false);
  const [keyNote, setKeyNote] = useState<string | null>(null);
  useShortcuts(EXCEPTION_SHORTCUTS, (key) => {
    if (key === 'help') return setHelp(true);
    const cards = [...document.querySelectorAll<HTMLElement>('[data-testid="exceptions-list"] .bo-exc-items > li')];
    const items = list.data?.items ?? [];
    if (cards.length === 0 || items.length === 0) return;
    const at = cards.findIndex((li) => li.contains(document.activeElement));
    if (key === 'next' || key === 'previous') {
      const to = cards[at < 0 ? 0 : Math.max(0, Math.min(cards.length - 1, at + (key === 'next' ? 1 : -1)))]!;
      const target = to.querySelector<HTMLElement>('.bo-exc-item__actions button') ?? to.querySelector<HTMLElement>('a');
      target?.focus();
      target?.scrollIntoView({ block: 'nearest' });
      return;
    }
    const item = items[Math.max(0, at)];
    if (!item) return;
    if (key === 'open') return navigate(`${FINANCE}/invoices/${encodeURIComponent(item.invoice_ref)}`);
    if (item.status !== 'open') return setKeyNote(t('exceptionKeys.notOpen', { invoice: item.invoice_ref, status: item.status }));
    setKeyNote(null);
    setActing({ item, status: key === 'resolve' ? 'resolved' : 'ignored' });
    setNote('');
    setNoteError(undefined);
    setDone(null);
  });

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
      setExportState({ tone: 'success', text: t('exceptions.exported', { count: rows }) });
    } catch (err) {
      setExportState({ tone: 'error', text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bo-page">
      <PageTitle
        title={t('exceptions.title')}
        subtitle={merchantName ? t('exceptions.subtitleOf', { merchant: <span translate="no">{merchantName}</span> }) : t('exceptions.subtitle')}
        actions={
          <>
            <ShortcutsButton onClick={() => setHelp(true)} />
            {isAdmin && merchants.data && (
              <SelectField label={t('finance.merchant')} value={picked} onChange={(v) => (setPicked(v), setOffset(0))} options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name, data: true }))} />
            )}
            <SelectField
              label={t('exceptions.kind')}
              value={kind}
              onChange={(v) => (setKind(v as ExceptionKind | ''), setOffset(0))}
              options={[{ value: '', label: t('exceptions.everyKind') }, ...EXCEPTION_KINDS.map((k) => ({ value: k, label: kindLabel(t, k) }))]}
            />
            <button type="button" className="bo-btn bo-btn--secondary bo-export-btn" disabled={busy || (isAdmin && !merchantId)} onClick={() => void download()}>
              {busy ? t('finance.preparing') : t('exceptions.export')}
            </button>
          </>
        }
      />
      <ShortcutsHelp open={help} onClose={() => setHelp(false)} shortcuts={EXCEPTION_SHORTCUTS} when="exceptionKeys.when" caption="exceptionKeys.caption" />
      {exportState && (
        <div className={`bo-alert bo-alert--${exportState.tone}`} role={exportState.tone === 'error' ? 'alert' : 'status'}>
          {exportState.text}
        </div>
      )}
      {keyNote && (
        <div className="bo-alert bo-alert--info" role="status">
          {keyNote}
        </div>
      )}
      {done && (
        <div className="bo-alert bo-alert--success" role="status">
          {done}
        </div>
      )}
      {invoice && (
        <div className="bo-alert bo-alert--info" role="status">
          {t('exceptions.onlyInvoice', { invoice: <Mono>{invoice}</Mono> })}{' '}
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => (setInvoice(''), window.history.replaceState(null, '', window.location.pathname))}>
            {t('exceptions.showEvery')}
          </button>
        </div>
      )}
      <Tabs tabs={STATUS_TABS.map((k) => ({ key: k, label: label(k) }))} current={tab} onChange={(k) => (setTab(k), setOffset(0))} label={t('tabs.exceptions')}>
      {isAdmin && !merchantId ? (
        merchants.isPending ? null : <Card><Empty title={t('finance.noMerchant')}>{t('finance.noMerchantHint')}</Empty></Card>
      ) : (
        <div data-testid="exceptions-list">
          <QueryState
            query={list}
            isEmpty={(d) => d.total === 0}
            empty={
              <Card>
                <Empty title={tab === 'open' ? t('exceptions.emptyOpen') : tab === 'resolved' ? t('exceptions.emptyResolved') : tab === 'ignored' ? t('exceptions.emptyIgnored') : t('exceptions.emptyAll')}>
                  {tab === 'open' ? t('exceptions.emptyOpenHint') : t('exceptions.emptyHint')}
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
      </Tabs>
      <ConfirmDialog
        open={acting !== null}
        title={acting ? t('exceptions.confirmTitle', { action: actionLabel(t, acting.status), invoice: acting.item.invoice_ref }) : ''}
        confirmLabel={acting ? actionLabel(t, acting.status) : ''}
        busy={review.isPending}
        onConfirm={confirm}
        onCancel={() => setActing(null)}
      >
        <label className="bo-filter__label" htmlFor="exc-note">
          {t('exceptions.note')}
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
      <Card title={t('exceptions.listed')}>
        <dl className="bo-exc-help">
          {EXCEPTION_KINDS.map((k) => (
            <div key={k}>
              <dt>{kindLabel(t, k)}</dt>
              <dd>{kindHelp(t, k)}</dd>
            </div>
          ))}
        </dl>
        <p className="bo-muted">{t('exceptions.listedNote')}</p>
      </Card>
    </div>
  );
}

type StatusTab = ExceptionStatus | 'all';
const STATUS_TABS: StatusTab[] = ['open', 'resolved', 'ignored', 'all'];
