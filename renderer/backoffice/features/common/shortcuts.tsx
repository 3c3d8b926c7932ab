import { useEffect, useId, useRef } from 'react';
import { useT } from '../../../ui/i18n';
import './shortcuts.css';

/** One single-key shortcut of a screen: the keys that trigger it, what it does (its action) and the message id that says so in the help. */
export interface Shortcut<A extends string> {
  keys: string[];
  action: A;
  what: string;
}

/** Typing in a field (or a select's list) never triggers a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

/**
 * A screen's single-key shortcuts: ignored while typing in a field, with Ctrl, Alt or Meta held,
 * and while a modal dialog is open (it owns the keyboard). The same rules on every screen that
 * has them (review queue, cash desk, exceptions), each listing its keys in its help dialog.
 */
export function useShortcuts<A extends string>(shortcuts: ReadonlyArray<Shortcut<A>>, onKey: (action: A) => void) {
  const latest = useRef(onKey);
  latest.current = onKey;
  useEffect(() => {
    const byKey = new Map<string, A>(shortcuts.flatMap((s) => s.keys.map((k) => [k, s.action] as const)));
    const handle = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      const action = byKey.get(e.key);
      if (action === undefined || typing(e.target) || document.querySelector('dialog[open]')) return;
      e.preventDefault();
      latest.current(action);
    };
    document.addEventListener('keydown', handle);
    return () => document.removeEventListener('keydown', handle);
  }, [shortcuts]);
}

/** The page-title button that opens a screen's shortcuts help (also opened by `?`). */
export function ShortcutsButton({ onClick }: { onClick: () => void }) {
  const t = useT();
  return (
    <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClick} aria-keyshortcuts="?">
      {t('shortcuts.button')}{' '}
      <kbd className="bo-shortcut-key" aria-hidden="true" translate="no">
        ?
      </kbd>
    </button>
  );
}

/**
 * A screen's shortcuts help: a modal dialog (native <dialog>: the rest of the page is inert and
 * focus stays inside), closed by Escape or its button; focus goes back where it was. `when` says
 * where the keys work, `caption` names the table for screen readers (both message ids).
 */
export function ShortcutsHelp<A extends string>({ open, onClose, shortcuts, when, caption }: { open: boolean; onClose: () => void; shortcuts: ReadonlyArray<Shortcut<A>>; when: string; caption: string }) {
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
      className="bo-confirm bo-shortcuts"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault(); // Escape: closed through the caller's state
        onClose();
      }}
    >
      <h2 id={titleId} className="bo-confirm__title">
        {t('shortcuts.title')}
      </h2>
      <div className="bo-confirm__body">
        <p className="bo-muted">{t(when)}</p>
        <table className="bo-shortcuts__table">
          <caption className="bo-visually-hidden">{t(caption)}</caption>
          <thead>
            <tr>
              <th scope="col">{t('shortcuts.key')}</th>
              <th scope="col">{t('shortcuts.does')}</th>
            </tr>
          </thead>
          <tbody>
            {shortcuts.map((s) => (
              <tr key={s.what}>
                <td translate="no">
                  {s.keys.map((k) => (
                    <kbd key={k} className="bo-shortcut-key">
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
          {t('shortcuts.close')}
        </button>
      </div>
    </dialog>
  );
}
