import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useT } from '../../../ui/i18n';

export interface ConfirmDialogProps {
  /** Open while true; the caller keeps the state (usually the item the action is about). */
  open: boolean;
  title: string;
  /** What will happen, in the words the user needs: amount and session, "requests with this key get 401 at once". */
  children: ReactNode;
  confirmLabel: string;
  /** Danger styling for destructive actions (revoke, disable, reject). */
  tone?: 'primary' | 'danger';
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/**
 * A modal confirmation on the native <dialog>: focus moves to the confirm button so a keyboard
 * user confirms with Enter (one action) and backs out with Escape; the browser traps focus and
 * makes the rest of the page inert while it is open.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, tone = 'primary', busy, onConfirm, onCancel }: ConfirmDialogProps) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // One id per dialog: a screen may hold several (disable staff and reset a password), and a
  // shared id would name every dialog after the first one's title.
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      confirmRef.current?.focus();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="bo-confirm"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault(); // Escape: the caller closes it, so its state stays the single truth
        onCancel();
      }}
    >
      <h2 id={titleId} className="bo-confirm__title">
        {title}
      </h2>
      <div className="bo-confirm__body">{children}</div>
      <div className="bo-confirm__actions">
        <button type="button" className="bo-btn bo-btn--secondary" onClick={onCancel} disabled={busy}>
          {t('common.cancel')}
        </button>
        <button ref={confirmRef} type="button" className={`bo-btn bo-btn--${tone}`} onClick={onConfirm} disabled={busy}>
          {busy ? t('common.working') : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
