import { useState } from 'react';

/** A secret shown once: copy button, and a warning that it will not be shown again. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
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
        <div className="bo-label">{label}: shown once, copy it now</div>
        <code className="bo-mono bo-secret__value">{value}</code>
      </div>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
