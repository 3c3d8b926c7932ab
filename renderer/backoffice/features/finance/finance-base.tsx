import { useT } from '../../../ui/i18n';
import type { ReactNode } from 'react';
import { ROUTES } from '../../routes';
import { Mono } from '../../../ui/blocks';

/** Where the finance screens live; every sub-view links relative to it. */
export const FINANCE_BASE = ROUTES.finance.path;

export function Stat({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="bo-stat">
      <div className="bo-stat__label">{label}</div>
      <div className="bo-stat__value">{value}</div>
    </div>
  );
}


/** An invoice reference in a list row, with the TEST chip when the row is test mode. */
export function InvoiceRefCell({ invoiceRef, mode }: { invoiceRef: string; mode: 'live' | 'test' }) {
  const t = useT();
  return (
    <>
      <Mono>{invoiceRef}</Mono>
      {mode === 'test' && (
        <span className="cd-test-chip" title={t('finance.testChipTitle')}>
          {t('finance.testChip')}
        </span>
      )}
    </>
  );
}
