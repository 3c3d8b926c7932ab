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
import { useT, type T } from '../../../ui/i18n';
import { useLabels } from '../common/labels';
import { useRouteLabels } from '../../layout/route-labels';

/** What each work area is for. */
const blurbs = (t: T): Partial<Record<RouteName, string>> => ({
  tellerScan: t('home.blurb.tellerScan'),
  review: t('home.blurb.review'),
  finance: t('home.blurb.finance'),
  exceptions: t('home.blurb.exceptions'),
  webhooks: t('home.blurb.webhooks'),
  admin: t('home.blurb.admin'),
  audit: t('home.blurb.audit'),
  account: t('home.blurb.account'),
});

/** Landing page. Finance and admins see the money at a glance; every role, the areas it works in. Tellers go straight to the cash desk. */
export function OverviewPage() {
  const t = useT();
  const labels = useLabels();
  const routeLabel = useRouteLabels();
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
      <PageTitle
        title={money ? t('home.title') : t('home.welcome', { name: session.user.username })}
        subtitle={money ? t('home.subtitle') : t('home.signedInAs', { role: labels.role(session.user.role) })}
      />
      {money && <MoneyOverview admin={role === 'admin'} />}
      {role === 'supervisor' && <Waiting />}
      <nav aria-label={t('home.areas')}>
        <div className="bo-areas">
          {areas.map((r) => (
            <Link key={r} to={ROUTES[r].path} className="bo-area">
              <span className="bo-area__title">{routeLabel(r)} →</span>
              <span className="bo-area__body">{blurbs(t)[r]}</span>
            </Link>
          ))}
        </div>
      </nav>
    </div>
  );
}

/** A supervisor's queue at a glance. */
function Waiting() {
  const t = useT();
  const api = useApi();
  const work = useQuery(workCountsQuery(api));
  const n = work.data?.deposits_waiting;
  if (n == null) return null;
  return (
    <Card testId="waiting-deposits">
      <p className="bo-waiting">
        {t('home.waiting', { count: n, b: (chunks) => <strong>{chunks}</strong> })} <Link to={ROUTES.review.path}>{t('home.openQueue')}</Link>
      </p>
    </Card>
  );
}

function MoneyOverview({ admin }: { admin: boolean }) {
  const t = useT();
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
        <Empty title={t('home.noMerchant')}>{t('home.noMerchantHint')}</Empty>
      </Card>
    );
  }
  return (
    <>
      <SelectField label={t('home.merchant')} value={picked} onChange={setPicked} options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name, data: true }))} />
      {picked && <FinanceOverview key={picked} merchantId={picked} />}
    </>
  );
}
