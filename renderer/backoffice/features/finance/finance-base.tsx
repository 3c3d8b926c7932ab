import { ROUTES } from '../../routes';

/** Where the finance screens live; every sub-view links relative to it. */
export const FINANCE_BASE = ROUTES.finance.path;

export function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="bo-stat">
      <div className="bo-stat__label">{label}</div>
      <div className="bo-stat__value">{value}</div>
    </div>
  );
}

