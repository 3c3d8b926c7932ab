import type { SessionRow } from '../../../../shared/schemas/backoffice';
import type { T } from '../../../ui/i18n';
import { Money, type Column } from '../../../ui/blocks';

/**
 * Who bore a paid session's fee and what reached the merchant, by the rule of the payments CSV
 * (finance-export.service.ts): a fee added to what the payer paid is the payer's, else the
 * merchant's; net is what was collected less the fee. Null before the session is paid.
 */
export function settlement(r: SessionRow): { bearer: 'payer' | 'merchant' | null; net: number } | null {
  if (r.fee_minor === null || r.collected_minor === null) return null;
  return { bearer: r.fee_minor === 0 ? null : r.collected_minor > r.amount_minor ? 'payer' : 'merchant', net: r.collected_minor - r.fee_minor };
}
const BEARER_WORDS = { payer: 'net.paidByPayer', merchant: 'net.paidByMerchant' } as const;

/**
 * The fee (with who paid it), collected and net columns of a table of sessions: the sessions
 * list and an invoice's sessions read the same words and figures. A dash until the session is paid.
 */
export function settlementColumns(t: T): Column<SessionRow>[] {
  return [
    {
      key: 'fee',
      header: t('finance.fee'),
      align: 'right',
      nowrap: true,
      render: (r) => {
        const paid = settlement(r);
        if (r.fee_minor === null || !paid) return <span className="bo-muted">—</span>;
        return (
          <>
            <Money minor={r.fee_minor} currency={r.currency} />
            <div className="bo-muted bo-small">{paid.bearer ? t(BEARER_WORDS[paid.bearer]) : t('net.noFee')}</div>
          </>
        );
      },
    },
    { key: 'collected', header: t('finance.collected'), align: 'right', nowrap: true, render: (r) => (r.collected_minor === null ? <span className="bo-muted">—</span> : <Money minor={r.collected_minor} currency={r.currency} />) },
    {
      key: 'net',
      header: t('net.column'),
      align: 'right',
      nowrap: true,
      render: (r) => {
        const paid = settlement(r);
        return paid ? <Money minor={paid.net} currency={r.currency} /> : <span className="bo-muted">—</span>;
      },
    },
  ];
}
