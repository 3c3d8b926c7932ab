import { useState, type ReactNode } from 'react';
import { useT } from './i18n';
import * as RadixTabs from '@radix-ui/react-tabs';
import { errorMessage } from '../backoffice/features/common/api';
import { formatMoney } from '../backoffice/features/common/format';
import { useLabels } from '../backoffice/features/common/labels';
import '../backoffice/features/common/features.css';
import '../backoffice/features/common/office.css';
export { InputField, SelectField } from './fields';
export { DataTable, Pagination, type Column, type SortState } from './data-table';

/** Shared building blocks of the back-office screens: one look for cards, tables, badges and states. */

const TONES: Record<string, 'green' | 'amber' | 'red' | 'grey' | 'blue'> = {
  success: 'green',
  approved: 'green',
  succeeded: 'green',
  active: 'green',
  used: 'green',
  remitted: 'green',
  pending: 'amber',
  under_review: 'amber',
  open: 'blue',
  failed: 'red',
  rejected: 'red',
  declined: 'red',
  voided: 'red',
  disabled: 'red',
  revoked: 'red',
  expired: 'grey',
  inactive: 'grey',
};

/** A state as a badge; `kind` words it as useLabels() does for that kind of record (one name per state on every screen). */
export function StatusBadge({ status, label: given, kind }: { status: string; label?: string; kind?: 'session' | 'deposit' | 'slip' }) {
  const labels = useLabels();
  const tone = TONES[status] ?? 'grey';
  const label = given ?? (kind === 'session' ? labels.sessionStatus(status) : kind === 'deposit' ? labels.depositStatus(status) : kind === 'slip' ? labels.slipStatus(status) : labels.state(status));
  return (
    <span className={`bo-badge bo-badge--${tone}`} data-status={status}>
      {label}
    </span>
  );
}

export function Money({ minor, currency, strong }: { minor: number; currency: string; strong?: boolean }) {
  return <span className={`bo-money${strong ? ' bo-money--strong' : ''}`}>{formatMoney(minor, currency)}</span>;
}

export function Card({ title, actions, children, className, testId }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={`bo-card${className ? ` ${className}` : ''}`} data-testid={testId} id={testId}>
      {(title || actions) && (
        <header className="bo-card__header">
          {title && <h2 className="bo-card__title">{title}</h2>}
          {actions && <div className="bo-card__actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function Loading({ label }: { label?: string }) {
  const t = useT();
  return (
    <div className="bo-state bo-state--loading" role="status" aria-live="polite">
      <span className="bo-spinner" aria-hidden="true" />
      {label ?? t('common.loading')}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="bo-state bo-state--empty">
      <p className="bo-state__title">{title}</p>
      {children && <p className="bo-state__body">{children}</p>}
    </div>
  );
}

function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const t = useT();
  return (
    <div className="bo-state bo-state--error" role="alert">
      <p className="bo-state__title">{t('common.loadFailed')}</p>
      <p className="bo-state__body">{errorMessage(t, error)}</p>
      {onRetry && (
        <button type="button" className="bo-btn bo-btn--secondary" onClick={onRetry}>
          {t('common.tryAgain')}
        </button>
      )}
    </div>
  );
}

/** Loading / error / empty / content, in that order, for one query. */
export function QueryState<T>({
  query,
  empty,
  isEmpty,
  children,
}: {
  query: { data: T | undefined; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError || query.data === undefined) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (isEmpty?.(query.data)) return <>{empty ?? <NothingYet />}</>;
  return <>{children(query.data)}</>;
}

function NothingYet() {
  const t = useT();
  return <Empty title={t('common.nothingYet')} />;
}

/**
 * Tabs with the whole ARIA tabs pattern (Radix): a tablist named `label`, arrow keys move between
 * tabs (and select them), Home and End go to the first and last, Tab leaves the list for the
 * panel; the panel (`children`, the current tab's content) is a tabpanel labelled by its tab.
 * The caller keeps the current tab, so a route that selects a tab keeps working.
 */
export function Tabs<K extends string>({
  tabs,
  current,
  onChange,
  label,
  children,
}: {
  tabs: Array<{ key: K; label: ReactNode }>;
  current: K;
  onChange: (k: K) => void;
  label: string;
  children?: ReactNode;
}) {
  return (
    <RadixTabs.Root value={current} onValueChange={(v) => onChange(v as K)} activationMode="automatic">
      <RadixTabs.List className="bo-tabs" aria-label={label}>
        {tabs.map((t) => (
          <RadixTabs.Trigger key={t.key} value={t.key} className="bo-tab">
            {t.label}
          </RadixTabs.Trigger>
        ))}
      </RadixTabs.List>
      <RadixTabs.Content value={current} className="bo-tabpanel">
        {children}
      </RadixTabs.Content>
    </RadixTabs.Root>
  );
}

/** A label/value grid for a record's details. */
export function DetailList({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <dl className="bo-details">
      {items.map(([k, v]) => (
        <div key={k} className="bo-details__row">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function PageTitle({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="bo-page-title">
      <div>
        <h1 className="bo-page-title__h">{title}</h1>
        {subtitle && <p className="bo-page-title__sub">{subtitle}</p>}
      </div>
      {actions && <div className="bo-page-title__actions">{actions}</div>}
    </div>
  );
}

/** A code, reference or key: shown as written, never translated. */
export const Mono = ({ children }: { children: ReactNode }) => (
  <code className="bo-mono" translate="no">
    {children}
  </code>
);

/**
 * A long identifier shown by its type prefix (`cs_test_`, `whd_`…) and its last six characters;
 * the whole value is in the tooltip and copied on select. The characters after the prefix are
 * not shown: in time-ordered ids (checkout sessions, deliveries) they are the creation time,
 * the same for every row made in the same minutes, so only the random end tells rows apart.
 * An id without a prefix (a UUID) shows its first eight characters and its last four.
 */
export function ShortId({ value }: { value: string }) {
  const prefix = /^[a-z]+_(?:test_|live_)?/.exec(value)?.[0];
  const short = prefix !== undefined ? (value.length > prefix.length + 8 ? `${prefix}…${value.slice(-6)}` : value) : value.length > 13 ? `${value.slice(0, 8)}…${value.slice(-4)}` : value;
  return (
    <code className="bo-mono" title={value} translate="no">
      {short}
    </code>
  );
}

/**
 * An id kept out of the sentence: shortened (ShortId), with a button that copies the whole id
 * ("Copy session id"); says "Copied" for a moment after.
 */
export function CopyId({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const t = useT();
  return (
    <span className="bo-copy-id">
      <span translate="no">
        <ShortId value={value} />
      </span>
      <button
        type="button"
        className="bo-btn bo-btn--secondary bo-btn--xs bo-copy-id__btn"
        aria-label={copied ? t('copyId.copiedLabel', { what }) : t('copyId.copyLabel', { what, id: value })}
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(
            () => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            },
            () => undefined,
          );
        }}
      >
        {copied ? t('copyId.copied') : t('copyId.copy')}
      </button>
    </span>
  );
}
