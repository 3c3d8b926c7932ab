import type { AuditEntry } from '../../../../shared/schemas/backoffice';
import { useT, type T } from '../../../ui/i18n';
import { formatDateTime } from '../common/format';
import { labelsWith } from '../common/labels';
import { auditFieldText, codeWords } from './audit-labels';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
// Times in the snapshots are UTC instants: show them in the reader's local time like the rest of the page.
// States and rails read as the rest of the back office words them (shared/labels.ts), not as codes.
// Other values are the record's own data (names, codes, URLs): shown as they are, not translated.
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

function Value({ field, v, t }: { field: string; v: unknown; t: T }) {
  const label = valueLabel(t, field, v);
  if (label !== undefined) return <>{label}</>;
  if (v === null || v === undefined) return <>—</>;
  if (typeof v === 'boolean') return <>{v ? t('audit.yes') : t('audit.no')}</>;
  if (typeof v === 'string' && ISO_TIME.test(v)) return <time dateTime={v}>{formatDateTime(v, { seconds: true })}</time>;
  return <span translate="no">{typeof v === 'string' ? v : JSON.stringify(v)}</span>;
}

/**
 * Before and after as a person reads a change: one line per field, the old value struck
 * through beside the new one; fields that did not change are not repeated.
 */
export function AuditDiff({ entry }: { entry: AuditEntry }) {
  const t = useT();
  const before = (entry.before && typeof entry.before === 'object' ? entry.before : {}) as Record<string, unknown>;
  const after = (entry.after && typeof entry.after === 'object' ? entry.after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]) || !(k in before));
  if (changed.length === 0) return <span className="bo-muted">{t('audit.noDetails')}</span>;
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
                    <Value field={k} v={before[k]} t={t} />
                  </del>
                  <span aria-hidden="true"> → </span>
                  <span className="bo-visually-hidden">{t('audit.now')} </span>
                </>
              )}
              <ins>{k in after ? <Value field={k} v={after[k]} t={t} /> : '—'}</ins>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
