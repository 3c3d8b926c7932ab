import { useState } from 'react';
import { useT } from '../../../ui/i18n';

/** A secret shown once: copy button, and a warning that it will not be shown again. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="bo-secret" role="status" data-testid="secret-once">
      <div className="bo-secret__body">
        <div className="bo-label">{t('admin.secret.once', { label })}</div>
        <code className="bo-mono bo-secret__value" translate="no">{value}</code>
      </div>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => void copy()}>
        {copied ? t('admin.secret.copied') : t('admin.secret.copy')}
      </button>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onDone}>
        {t('admin.secret.done')}
      </button>
    </div>
  );
}
