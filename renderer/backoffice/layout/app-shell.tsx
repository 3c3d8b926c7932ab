import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { serverQueries } from '../api/server.queries';
import { useSession } from '../features/auth/session';
import { OverviewPage } from '../features/home/overview-page';
import { AdminPage } from '../features/admin/admin-page';
import { AuditPage } from '../features/audit/audit-page';
import { CashDeskPage } from '../features/cash-desk/cash-desk-page';
import { CashUpPage } from '../features/cash-desk/cash-up-page';
import { FinancePage } from '../features/finance/finance-page';
import { ExceptionsPage } from '../features/finance/exceptions-page';
import { ReviewPage } from '../features/review/review-page';
import { WebhooksPage } from '../features/webhooks/webhooks-page';
import { PlaceholderPage } from '../features/placeholder/placeholder-page';
import { AccountPage } from '../features/auth/account-page';
import { Link, useRouter } from '../router';
import { matchRoute, ROUTES, routesFor, type RouteName } from '../routes';
import { Button } from '../../ui/button';
import { LanguageSwitch, useT, type T } from '../../ui/i18n';
import { useLabels } from '../features/common/labels';
import { useRouteLabels } from './route-labels';
import { useApi } from '../features/common/api';
import { workCountsQuery } from '../features/finance/exceptions.queries';

/** Header, role-filtered navigation and the current page. */
export function AppShell() {
  const { session, signOut } = useSession();
  const t = useT();
  const labels = useLabels();
  const routeLabel = useRouteLabels();
  const { path } = useRouter();
  // On a phone the page list folds behind a Menu button; it closes again on every navigation.
  const [navOpen, setNavOpen] = useState(false);
  useEffect(() => setNavOpen(false), [path]);
  const health = useQuery(serverQueries.health());
  const version = useQuery(serverQueries.desktopVersion());
  const connection = useQuery(serverQueries.desktopConnection());
  const api = useApi();
  const role = session?.user.role;
  const work = useQuery({ ...workCountsQuery(api), enabled: role === 'finance' || role === 'admin' || role === 'supervisor' });
  if (!session) return null;
  // The count is read as a sentence ("3 deposits waiting for review"), the digits alone are for the eye.
  const waiting: Partial<Record<RouteName, { n: number; what: string }>> = {};
  const open = work.data?.exceptions_open;
  if (open != null) waiting.exceptions = { n: open, what: t('waiting.exceptions', { count: open }) };
  const deposits = work.data?.deposits_waiting;
  if (deposits != null) waiting.review = { n: deposits, what: t('waiting.deposits', { count: deposits }) };

  const allowed = routesFor(session.user.role);
  const current = matchRoute(path);

  return (
    <div className={`shell${navOpen ? ' shell--nav-open' : ''}`}>
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <header className="shell__header">
        <button type="button" className="shell__menu" aria-expanded={navOpen} aria-controls="shell-nav" onClick={() => setNavOpen((o) => !o)}>
          {t('shell.menu')}
        </button>
        <span className="shell__brand" translate="no">
          Paydesk
        </span>
        <span className={`shell__status shell__status--${health.isError ? 'down' : 'up'}`} role="status" title={serverTitle(t, connection.data)}>
          {serverStatus(t, health.isError, health.isFetching)}
          {connection.data?.serverUrl ? (
            <span className="shell__server" translate="no">
              {' '}
              · {new URL(connection.data.serverUrl).host}
            </span>
          ) : null}
        </span>
        <span className="shell__user">
          <span translate="no">{session.user.username}</span> · {labels.role(session.user.role)}
        </span>
        <LanguageSwitch label={t('shell.language')} className="language-switch shell__language" />
        <Button variant="secondary" onClick={signOut}>
          {t('shell.signOut')}
        </Button>
      </header>
      <nav id="shell-nav" className="shell__nav" aria-label={t('shell.nav')}>
        <ul>
          {allowed.map((name) => (
            <li key={name}>
              <Link to={ROUTES[name].path} className="shell__nav-link">
                {routeLabel(name)}
                {waiting[name] && waiting[name].n > 0 ? (
                  <span className="shell__count" data-testid={`nav-count-${name}`}>
                    <span aria-hidden="true" translate="no">
                      {waiting[name].n}
                    </span>
                    <span className="bo-visually-hidden"> ({waiting[name].what})</span>
                  </span>
                ) : null}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1} className="shell__main">{renderPage(t, current, allowed)}</main>
      <footer className="shell__footer">
        {version.data ? t('shell.footer.desktop', { version: version.data }) : t('shell.footer.browser')}
        {health.data?.version ? ` · ${t('shell.footer.server', { version: health.data.version, commit: health.data.commit ?? t('shell.footer.unknownCommit') })}` : null}
      </footer>
    </div>
  );
}

/**
 * The header's server state. In the desktop app's client mode the page itself comes from the
 * central server, so /healthz is that server's: unreachable means the central server or the
 * network to it, and the query retries every few seconds ("Reconnecting…" while it does).
 */
function serverStatus(t: T, isError: boolean, isFetching: boolean): string {
  if (!isError) return t('shell.server.online');
  return isFetching ? t('shell.server.reconnecting') : t('shell.server.unreachable');
}

function serverTitle(t: T, connection: PaydeskConnection | null | undefined): string | undefined {
  if (!connection) return undefined;
  return connection.mode === 'client' && connection.serverUrl ? t('shell.server.central', { url: connection.serverUrl }) : t('shell.server.embedded');
}

function renderPage(t: T, current: RouteName | null, allowed: readonly RouteName[]) {
  if (!current) return <PlaceholderPage title={t('shell.notFound.title')} body={t('shell.notFound.body')} />;
  if (!allowed.includes(current)) return <PlaceholderPage title={t('shell.notAllowed.title')} body={t('shell.notAllowed.body')} />;
  switch (current) {
    case 'home':
      return <OverviewPage />;
    case 'tellerScan':
      return <CashDeskPage />;
    case 'cashUp':
      return <CashUpPage />;
    case 'review':
      return <ReviewPage />;
    case 'finance':
      return <FinancePage />;
    case 'exceptions':
      return <ExceptionsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'admin':
      return <AdminPage />;
    case 'audit':
      return <AuditPage />;
    case 'account':
      return <AccountPage />;
    default: {
      const missing: never = current;
      throw new Error(`no page for route ${String(missing)}`);
    }
  }
}
