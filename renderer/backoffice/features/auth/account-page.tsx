import { useQuery } from '@tanstack/react-query';
import { useApi } from '../common/api';
import { useT } from '../../../ui/i18n';
import { formatZone } from '../common/format';
import { ChangePasswordForm } from './change-password';
import { meQueries } from './me.queries';

/**
 * The signed-in person's account: who they are, the instance's time zone (GET /me `time_zone`,
 * the server's TZ) beside the zone this screen shows times in, and the password form.
 */
export function AccountPage() {
  const api = useApi();
  const t = useT();
  const me = useQuery(meQueries.me(api));
  const u = me.data?.user;
  const screenZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <div className="bo-account">
      <ChangePasswordForm forced={false} />
      <section className="sign-in__card" aria-labelledby="account-profile-title" data-testid="account-profile">
        <h2 id="account-profile-title" className="bo-subhead">
          {t('account.title')}
        </h2>
        {u && me.data && (
          <dl className="bo-profile">
            <dt>{t('account.username')}</dt>
            <dd translate="no">{u.username}</dd>
            <dt>{t('account.role')}</dt>
            <dd>{t(`account.role.${u.role}`)}</dd>
            {(u.branch_name ?? u.merchant_name) && (
              <>
                <dt>{u.branch_name ? t('account.branch') : t('account.merchant')}</dt>
                <dd translate="no">{u.branch_name ?? u.merchant_name}</dd>
              </>
            )}
            <dt>{t('account.instanceZone')}</dt>
            <dd data-testid="instance-time-zone" translate="no">
              {formatZone(me.data.time_zone)}
            </dd>
            <dt>{t('account.screenZone')}</dt>
            <dd data-testid="screen-time-zone" translate="no">
              {formatZone(screenZone)}
            </dd>
          </dl>
        )}
        <p className="bo-muted">{t('account.zonesHint')}</p>
      </section>
    </div>
  );
}
