import { Empty } from '../../../ui/blocks';
import { useT } from '../../../ui/i18n';

/**
 * One wording for every filtered list that comes back empty, so the hint reads the same on
 * finance, invoices, audit and webhooks.
 */
export function NoMatch() {
  const t = useT();
  return <Empty title={t('common.noMatch.title')}>{t('common.noMatch.hint')}</Empty>;
}
