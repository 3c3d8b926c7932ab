import type { Rail } from '../../shared/schemas/common';

/** Small line icons for the rails and outcomes; decorative (aria-hidden), the text beside them carries the meaning. */
export function RailIcon({ rail }: { rail: Rail }) {
  const common = { viewBox: '0 0 24 24', width: 22, height: 22, 'aria-hidden': true, fill: 'none', stroke: 'currentColor', strokeWidth: 1.7, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const };
  switch (rail) {
    case 'momo':
      return (
        <svg {...common}>
          <rect x="6.5" y="2.5" width="11" height="19" rx="2.5" />
          <path d="M10.5 18.5h3" />
          <path d="M9.5 9.5l2 2 3.5-3.5" />
        </svg>
      );
    case 'card':
      return (
        <svg {...common}>
          <rect x="2.5" y="5" width="19" height="14" rx="2.5" />
          <path d="M2.5 9.5h19M6 15h4" />
        </svg>
      );
    case 'bank_transfer':
      return (
        <svg {...common}>
          <path d="M3 9.5L12 4l9 5.5M4.5 20h15M6 11v6.5M10 11v6.5M14 11v6.5M18 11v6.5" />
        </svg>
      );
    case 'cash':
      return (
        <svg {...common}>
          <rect x="2.5" y="6" width="19" height="12" rx="2" />
          <circle cx="12" cy="12" r="2.6" />
          <path d="M6 9.5v5M18 9.5v5" />
        </svg>
      );
  }
}

export function OutcomeIcon({ kind }: { kind: 'success' | 'failed' | 'expired' | 'pending' | 'missing' }) {
  const common = { viewBox: '0 0 48 48', width: 56, height: 56, 'aria-hidden': true, fill: 'none', strokeWidth: 3, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const };
  switch (kind) {
    case 'success':
      return (
        <svg {...common} className="outcome-icon is-success">
          <circle cx="24" cy="24" r="22" fill="currentColor" stroke="none" />
          <path d="M14 24.5l7 7 13-14" stroke="#fff" />
        </svg>
      );
    case 'failed':
      return (
        <svg {...common} className="outcome-icon is-failed">
          <circle cx="24" cy="24" r="22" fill="currentColor" stroke="none" />
          <path d="M17 17l14 14M31 17L17 31" stroke="#fff" />
        </svg>
      );
    case 'expired':
      return (
        <svg {...common} className="outcome-icon is-expired">
          <circle cx="24" cy="24" r="22" fill="currentColor" stroke="none" />
          <path d="M24 13v11l7 5" stroke="#fff" />
        </svg>
      );
    case 'pending':
      return (
        <svg {...common} className="outcome-icon is-pending">
          <circle cx="24" cy="24" r="22" fill="currentColor" stroke="none" />
          <circle cx="15" cy="24" r="2.5" fill="#fff" stroke="none" />
          <circle cx="24" cy="24" r="2.5" fill="#fff" stroke="none" />
          <circle cx="33" cy="24" r="2.5" fill="#fff" stroke="none" />
        </svg>
      );
    case 'missing':
      return (
        <svg {...common} className="outcome-icon is-missing">
          <circle cx="24" cy="24" r="22" fill="currentColor" stroke="none" />
          <path d="M19 19a5 5 0 119 3c-2 1.6-3.5 2.5-3.5 5M24.5 33v.5" stroke="#fff" />
        </svg>
      );
  }
}

export function Spinner({ label }: { label?: string }) {
  return (
    <span className="spinner" role={label ? 'img' : undefined} aria-label={label} aria-hidden={label ? undefined : true}>
      <svg viewBox="0 0 24 24" width="18" height="18">
        <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeOpacity="0.2" strokeWidth="3" />
        <path d="M21 12a9 9 0 00-9-9" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
    </span>
  );
}
