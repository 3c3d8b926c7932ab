import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSession } from '../auth/session';
import { Link, useRouter } from '../../router';
import { ROUTES, routesFor, type RouteName } from '../../routes';
import { useApi } from '../common/api';
import { Card, Empty, PageTitle, SelectField } from '../../../ui/blocks';
import { financeQueries } from '../finance/finance.queries';
import { workCountsQuery } from '../finance/exceptions.queries';
import { FinanceOverview } from '../overview/finance-overview';

const BLURBS: Partial<Record<RouteName, string>> = {
  tellerScan: 'Scan a payer’s deposit slip, count the cash, record it and print the receipt.',
  review: 'Approve or reject deposits recorded at the counters.',
  finance: 'Sessions with their timelines, invoices, revenue lines and the reconciliation export.',
  exceptions: 'Payments that do not match their invoice: over-paid, paid twice, part-paid. Resolve or ignore each with a note.',
  webhooks: 'Delivery log, redelivery, recovery and endpoint health.',
  admin: 'Integrations, API keys, webhook endpoints, fees, staff, banks and branches.',
  audit: 'Every staff action, who did it and when.',
  account: 'Change your own password.',
};

/** Landing page. Finance and admins see the money at a glance; every role, the areas it works in. Tellers go straight to the cash desk. */
export function OverviewPage() {
  const { session } = useSession();
  const { navigate } = useRouter();
  const role = session?.user.role;
  useEffect(() => {
    if (role === 'teller') navigate(ROUTES.tellerScan.path);
  }, [role, navigate]);
  if (!session) return null;
  const areas = routesFor(session.user.role).filter((r) => r !== 'home');
  const money = role === 'finance' || role === 'admin';
  return (
    <div className="bo-page">
      <PageTitle title={money ? 'Overview' : `Welcome, ${session.user.username}`} subtitle={money ? 'Collections, fees and what needs attention, by day' : `Signed in as ${session.user.role}. Choose where to work.`} />
      {money && <MoneyOverview admin={role === 'admin'} />}
      {role === 'supervisor' && <Waiting />}
      <nav aria-label="Work areas">
        <div className="bo-areas">
          {areas.map((r) => (
            <Link key={r} to={ROUTES[r].path} className="bo-area">
              <span className="bo-area__title">{ROUTES[r].label} →</span>
              <span className="bo-area__body">{BLURBS[r]}</span>
            </Link>
          ))}
        </div>
      </nav>
    </div>
  );
}

/** A supervisor's queue at a glance. */
function Waiting() {
  const api = useApi();
  const work = useQuery(workCountsQuery(api));
  const n = work.data?.deposits_waiting;
  if (n == null) return null;
  return (
    <Card testId="waiting-deposits">
      <p className="bo-waiting">
        <strong>{n}</strong> deposit{n === 1 ? '' : 's'} waiting for review. <Link to={ROUTES.review.path}>Open the review queue</Link>
      </p>
    </Card>
  );
}

function MoneyOverview({ admin }: { admin: boolean }) {
  const api = useApi();
  const merchants = useQuery({ ...financeQueries.merchants(api), enabled: admin });
  const [picked, setPicked] = useState('');
  useEffect(() => {
    if (admin && !picked && merchants.data?.merchants[0]) setPicked(merchants.data.merchants[0].id);
  }, [admin, picked, merchants.data]);
  if (!admin) return <FinanceOverview merchantId={undefined} />;
  if (merchants.isPending) return null;
  if (!merchants.data?.merchants.length) {
    return (
      <Card>
        <Empty title="No merchant yet">Create a merchant integration first (Administration).</Empty>
      </Card>
    );
  }
  return (
    <>
      <SelectField label="Merchant" value={picked} onChange={setPicked} options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))} />
      {picked && <FinanceOverview key={picked} merchantId={picked} />}
    </>
  );
}
