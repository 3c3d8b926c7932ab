import { useQuery } from '@tanstack/react-query';
import type { AuditEntry } from '../../../../shared/schemas/backoffice';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { formatDateTime, formatMoney } from '../common/format';
import { CopyId } from '../../../ui/blocks';
import { adminQueries } from '../admin/admin.queries';
import { depositQueries } from '../review/deposits.queries';
import { currentLocale, useT, type T } from '../../../ui/i18n';
import { labelsWith } from '../common/labels';
import { auditFieldText, codeWords } from './audit-labels';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** A field's name in the reader's language; a code with no message reads as words, untranslated. */
const fieldName = (t: T, k: string) => auditFieldText(t, k) ?? codeWords(k);

/** A state or a rail in words (`deposit_status: under_review` → "Waiting for review"); undefined for other fields. */
function valueLabel(t: T, field: string, v: unknown): string | undefined {
  const labels = labelsWith(t);
  if (typeof v === 'string') {
    if (field === 'rail' || field === 'paid_rail') return labels.rail(v);
    if (field === 'exception_status') return labels.exceptionStatus(v);
    if (field === 'session_status') return labels.sessionStatus(v);
    if (field === 'deposit_status') return labels.depositStatus(v);
    if (field === 'slip_status') return labels.slipStatus(v);
  }
  if (field === 'allowed_rails' && Array.isArray(v) && v.every((r) => typeof r === 'string')) return v.map((r: string) => labels.rail(r)).join(', ');
  return undefined;
}

/** Names of the ids an entry may hold, from what the signed-in role can already read (banks and merchants for an admin, branches for a supervisor). */
function useNames(t: T): ReadonlyMap<string, string> {
  const api = useApi();
  const { session } = useSession();
  const admin = session?.user.role === 'admin';
  const banks = useQuery({ ...adminQueries.banks(api), enabled: admin, staleTime: 60_000 });
  const integrations = useQuery({ ...adminQueries.integrations(api), enabled: admin, staleTime: 60_000 });
  const facets = useQuery({ ...depositQueries.facets(api), enabled: session?.user.role === 'supervisor' });
  const names = new Map<string, string>();
  for (const b of banks.data?.banks ?? []) {
    names.set(b.id, b.name);
    for (const br of b.branches) names.set(br.id, `${br.name} (${b.name})`);
  }
  for (const i of integrations.data?.integrations ?? []) {
    names.set(i.merchant_id, i.merchant_name);
    names.set(i.integration_id, t('auditWords.integrationOf', { merchant: i.merchant_name, mode: i.mode }));
    for (const e of i.webhook_endpoints) names.set(e.id, e.url);
  }
  for (const br of facets.data?.branches ?? []) names.set(br.id, br.name);
  return names;
}

/**
 * One recorded value as a person reads it: states and rails in words (shared/labels.ts), amounts
 * in the entry's currency, times in the reader's local time, ids as the name they stand for
 * (when the screen knows it) with the id itself behind a copy button. Other values are the
 * record's own data (names, codes, URLs): shown as they are, not translated.
 */
function Value({ field, value, currency, names, t }: { field: string; value: unknown; currency: string | undefined; names: ReadonlyMap<string, string>; t: T }) {
  const label = valueLabel(t, field, value);
  if (label !== undefined) return <>{label}</>;
  if (value === null || value === undefined) return <>—</>;
  if (typeof value === 'number' && field.endsWith('_minor')) {
    return currency ? <span translate="no">{formatMoney(value, currency)}</span> : <>{t('auditWords.minorUnits', { value: <span translate="no">{value}</span> })}</>;
  }
  if (typeof value === 'number' && field === 'percent_bps') return <span translate="no">{`${(value / 100).toLocaleString(currentLocale())} %`}</span>;
  if (field === 'bearer' && (value === 'payer' || value === 'merchant')) return <>{value === 'payer' ? t('auditWords.bearerPayer') : t('auditWords.bearerMerchant')}</>;
  if (typeof value === 'string' && (field.endsWith('_id') || field === 'id')) {
    const name = names.get(value);
    return (
      <span className="bo-diff__id">
        {name ? <span translate="no">{name}</span> : null}
        <CopyId value={value} what={fieldName(t, field)} />
      </span>
    );
  }
  if (typeof value === 'boolean') return <>{value ? t('audit.yes') : t('audit.no')}</>;
  if (typeof value === 'string' && ISO_TIME.test(value)) return <time dateTime={value}>{formatDateTime(value, { seconds: true })}</time>;
  return <span translate="no">{typeof value === 'string' ? value : JSON.stringify(value)}</span>;
}

/**
 * Before and after as a person reads a change: one line per field, the old value struck
 * through beside the new one; fields that did not change are not repeated.
 */
export function AuditDiff({ entry }: { entry: AuditEntry }) {
  const t = useT();
  const names = useNames(t);
  const before = (entry.before && typeof entry.before === 'object' ? entry.before : {}) as Record<string, unknown>;
  const after = (entry.after && typeof entry.after === 'object' ? entry.after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]) || !(k in before));
  if (changed.length === 0) return <span className="bo-muted">{t('audit.noDetails')}</span>;
  const currencyOf = (snap: Record<string, unknown>) => (typeof snap.currency === 'string' ? snap.currency : typeof after.currency === 'string' ? after.currency : typeof before.currency === 'string' ? before.currency : undefined);
  return (
    <dl className="bo-diff">
      {changed.map((k) => {
        const name = auditFieldText(t, k);
        return (
          <div key={k} className="bo-diff__row">
            <dt>{name ?? <span translate="no">{codeWords(k)}</span>}</dt>
            <dd>
              {k in before && (
                <>
                  <span className="bo-visually-hidden">{t('audit.was')} </span>
                  <del>
                    <Value field={k} value={before[k]} currency={currencyOf(before)} names={names} t={t} />
                  </del>
                  <span aria-hidden="true"> → </span>
                  <span className="bo-visually-hidden">{t('audit.now')} </span>
                </>
              )}
              <ins>{k in after ? <Value field={k} value={after[k]} currency={currencyOf(after)} names={names} t={t} /> : '—'}</ins>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
