import { useShortcuts, type Shortcut } from '../common/shortcuts';

export type ReviewKey = 'next' | 'previous' | 'approve' | 'reject' | 'open' | 'help';

/** The review queue's keys (message ids of what each does), as the help dialog and docs/backoffice.md list them. */
export const REVIEW_SHORTCUTS: ReadonlyArray<Shortcut<ReviewKey>> = [
  { keys: ['j'], action: 'next', what: 'reviewKeys.next' },
  { keys: ['k'], action: 'previous', what: 'reviewKeys.previous' },
  { keys: ['a'], action: 'approve', what: 'reviewKeys.approve' },
  { keys: ['r'], action: 'reject', what: 'reviewKeys.reject' },
  { keys: ['o'], action: 'open', what: 'reviewKeys.open' },
  { keys: ['?'], action: 'help', what: 'shortcuts.help' },
];

/** The review queue's single-key shortcuts (the rules of features/common/shortcuts.tsx). */
export const useReviewShortcuts = (onKey: (key: ReviewKey) => void) => useShortcuts(REVIEW_SHORTCUTS, onKey);
