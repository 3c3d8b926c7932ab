import { useEffect, useId, useRef } from 'react';
import { useT } from '../../../ui/i18n';

/** The review queue's keys (message ids of what each does), as the help overlay and docs/backoffice.md list them. */
const REVIEW_SHORTCUTS: ReadonlyArray<{ keys: string[]; what: string }> = [
  { keys: ['j'], what: 'reviewKeys.next' },
  { keys: ['k'], what: 'reviewKeys.previous' },
  { keys: ['a'], what: 'reviewKeys.approve' },
  { keys: ['r'], what: 'reviewKeys.reject' },
  { keys: ['o'], what: 'reviewKeys.open' },
  { keys: ['?'], what: 'reviewKeys.help' },
];

export type ReviewKey = 'next' | 'previous' | 'approve' | 'reject' | 'open' | 'help';
const KEYS: Readonly<Record<string, ReviewKey>> = { j: 'next', k: 'previous', a: 'approve', r: 'reject', o: 'open', '?': 'help' };

/** Typing in a field (or a select's list) never triggers a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

/**
 * Single-key shortcuts on the page: ignored while typing in a field, with Ctrl, Alt or Meta held,
 * and while a modal dialog is open (it owns the keyboard).
 */
export function useReviewShortcuts(onKey: (key: ReviewKey) => void) {
  const latest = useRef(onKey);
  latest.current = onKey;
  useEffect(() => {
    const handle = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      const key = KEYS[e.key];
      if (!key || typing(e.target) || document.querySelector('dialog[open]')) return;
      e.preventDefault();
      latest.current(key);
    };
    document.addEventListener('keydown', handle);
    return () => document.removeEventListener('keydown', handle);
  }, []);
}

/**
 * The shortcuts' help: a modal dialog (native <dialog>: the rest of the page is inert and focus
 * stays inside), closed by Escape or its button; focus goes back where it was.
 */
export function ShortcutsHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const back = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const t = useT();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      back.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      closeRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      const to = back.current;
      back.current = null;
      if (to?.isConnected) to.focus();
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="bo-confirm rv-shortcuts"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault(); // Escape: closed through the caller's state
        onClose();
      }}
    >
      <h2 id={titleId} className="bo-confirm__title">
        {t('reviewKeys.title')}
      </h2>
      <div className="bo-confirm__body">
        <p className="bo-muted">{t('reviewKeys.when')}</p>
        <table className="rv-shortcuts__table">
          <caption className="bo-visually-hidden">{t('reviewKeys.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('reviewKeys.key')}</th>
              <th scope="col">{t('reviewKeys.does')}</th>
            </tr>
          </thead>
          <tbody>
            {REVIEW_SHORTCUTS.map((s) => (
              <tr key={s.what}>
                <td translate="no">
                  {s.keys.map((k) => (
                    <kbd key={k} className="rv-kbd">
                      {k}
                    </kbd>
                  ))}
                </td>
                <td>{t(s.what)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="bo-confirm__actions">
        <button ref={closeRef} type="button" className="bo-btn bo-btn--secondary" onClick={onClose}>
          {t('reviewKeys.close')}
        </button>
      </div>
    </dialog>
  );
}
