import { useEffect } from 'react';
import { useSession } from '../auth/session';
import { Link, useRouter } from '../../router';
import { ROUTES, routesFor, type RouteName } from '../../routes';
import { PageTitle } from '../common/ui';

const BLURBS: Partial<Record<RouteName, string>> = {
  tellerScan: 'Scan a payer’s deposit slip, count the cash, record it and print the receipt.',
  review: 'Approve or reject deposits recorded at the counters.',
  finance: 'Sessions with their timelines, invoices, revenue lines and the reconciliation export.',
  webhooks: 'Delivery log, redelivery, recovery and endpoint health.',
  admin: 'Integrations, API keys, webhook endpoints, fees, staff, banks and branches.',
  audit: 'Every staff action, who did it and when.',
};

/** Landing page: the areas this role works in. Tellers go straight to the cash desk. */
export function OverviewPage() {
  const { session } = useSession();
  const { navigate } = useRouter();
  const role = session?.user.role;
  useEffect(() => {
    if (role === 'teller') navigate(ROUTES.tellerScan.path);
  }, [role, navigate]);
  if (!session) return null;
  const areas = routesFor(session.user.role).filter((r) => r !== 'home');
  return (
    <div className="bo-page">
      <PageTitle title={`Welcome, ${session.user.username}`} subtitle={`Signed in as ${session.user.role}. Choose where to work.`} />
      <div className="bo-areas">
        {areas.map((r) => (
          <Link key={r} to={ROUTES[r].path} className="bo-area">
            <span className="bo-area__title">{ROUTES[r].label} →</span>
            <span className="bo-area__body">{BLURBS[r]}</span>
          </Link>
        ))}
      </div>
    </div>
  );
}
