import { useEffect, useState } from 'react';
import { useT } from '../ui/i18n';

/** Writes text to the clipboard: the async Clipboard API, or a hidden textarea where it is missing or refused. */
async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy path (permission refused, insecure context, older browser)
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  area.style.pointerEvents = 'none';
  document.body.appendChild(area);
  const active = document.activeElement as HTMLElement | null;
  area.select();
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  active?.focus();
  return ok;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const t = useT();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className={`copy-btn${state === 'copied' ? ' is-copied' : ''}`}
      aria-label={t('checkout.copy.label', { what: label })}
      onClick={() => {
        void copyText(value).then((ok) => setState(ok ? 'copied' : 'failed'));
      }}
    >
      <span aria-hidden="true" className="copy-icon">
        {state === 'copied' ? (
          <svg viewBox="0 0 16 16" width="14" height="14"><path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" /></svg>
        ) : (
          <svg viewBox="0 0 16 16" width="14" height="14"><rect x="5" y="5" width="9" height="9" rx="2" fill="none" stroke="currentColor" strokeWidth="1.5" /><path d="M11 3.5V3a1.5 1.5 0 00-1.5-1.5h-6A1.5 1.5 0 002 3v6a1.5 1.5 0 001.5 1.5H4" fill="none" stroke="currentColor" strokeWidth="1.5" /></svg>
        )}
      </span>
      <span>{state === 'copied' ? t('checkout.copy.copied') : state === 'failed' ? t('checkout.copy.select') : t('checkout.copy.copy')}</span>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? t('checkout.copy.done', { what: label }) : state === 'failed' ? t('checkout.copy.failed', { what: label }) : ''}
      </span>
    </button>
  );
}
