import { useCallback } from 'react';
import { useT } from '../../ui/i18n';
import type { RouteName } from '../routes';

/** Each page's name in the navigation and on the overview, in the staff member's language. */
export function useRouteLabels(): (name: RouteName) => string {
  const t = useT();
  return useCallback(
    (name: RouteName) => {
      switch (name) {
        case 'home':
          return t('shell.route.home');
        case 'tellerScan':
          return t('shell.route.tellerScan');
        case 'cashUp':
          return t('shell.route.cashUp');
        case 'review':
          return t('shell.route.review');
        case 'finance':
          return t('shell.route.finance');
        case 'exceptions':
          return t('shell.route.exceptions');
        case 'webhooks':
          return t('shell.route.webhooks');
        case 'admin':
          return t('shell.route.admin');
        case 'audit':
          return t('shell.route.audit');
        case 'account':
          return t('shell.route.account');
        default: {
          const missing: never = name;
          return String(missing);
        }
      }
    },
    [t],
  );
}
