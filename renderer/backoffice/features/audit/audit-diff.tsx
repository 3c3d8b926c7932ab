import type { AuditEntry } from '../../../../shared/schemas/backoffice';
import { formatDateTime } from '../common/format';
import { auditValueLabel } from '../../../../shared/labels';

const words = (key: string) => key.replace(/_minor$/, '').replace(/_/g, ' ');
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
// Times in the snapshots are UTC instants: show them in the reader's local time like the rest of the page.
// States and rails read as the rest of the back office words them (shared/labels.ts), not as codes.
const show = (field: string, v: unknown): string =>
  auditValueLabel(field, v) ??
  (v === null || v === undefined ? '—' : typeof v === 'string' ? (ISO_TIME.test(v) ? formatDateTime(v, { seconds: true }) : v) : typeof v === 'boolean' ? (v ? 'yes' : 'no') : JSON.stringify(v));

/**
 * Before and after as a person reads a change: one line per field, the old value struck
 * through beside the new one; fields that did not change are not repeated.
 */
export function AuditDiff({ entry }: { entry: AuditEntry }) {
  const before = (entry.before && typeof entry.before === 'object' ? entry.before : {}) as Record<string, unknown>;
  const after = (entry.after && typeof entry.after === 'object' ? entry.after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]) || !(k in before));
  if (changed.length === 0) return <span className="bo-muted">No details</span>;
  return (
    <dl className="bo-diff">
      {changed.map((k) => (
        <div key={k} className="bo-diff__row">
          <dt>{words(k)}</dt>
          <dd>
            {k in before && (
              <>
                <span className="bo-visually-hidden">was </span>
                <del>{show(k, before[k])}</del>
                <span aria-hidden="true"> → </span>
                <span className="bo-visually-hidden">, now </span>
              </>
            )}
            <ins>{k in after ? show(k, after[k]) : '—'}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}
