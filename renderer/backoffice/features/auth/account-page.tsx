import { useQuery } from '@tanstack/react-query';
import { useApi } from '../common/api';
import { formatZone } from '../common/format';
import { ChangePasswordForm } from './change-password';
import { meQueries } from './me.queries';

/**
 * The signed-in person's account: who they are, the instance's time zone (GET /me `time_zone`,
 * the server's TZ) beside the zone this screen shows times in, and the password form.
 */
export function AccountPage() {
  const api = useApi();
  const me = useQuery(meQueries.me(api));
  const u = me.data?.user;
  const screenZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <div className="bo-account">
      <ChangePasswordForm forced={false} />
      <section className="sign-in__card" aria-labelledby="account-profile-title" data-testid="account-profile">
        <h2 id="account-profile-title" className="bo-subhead">
          Your account
        </h2>
        {u && me.data && (
          <dl className="bo-profile">
            <dt>Username</dt>
            <dd translate="no">{u.username}</dd>
            <dt>Role</dt>
            <dd>{u.role.charAt(0).toUpperCase() + u.role.slice(1)}</dd>
            {(u.branch_name ?? u.merchant_name) && (
              <>
                <dt>{u.branch_name ? 'Branch' : 'Merchant'}</dt>
                <dd translate="no">{u.branch_name ?? u.merchant_name}</dd>
              </>
            )}
            <dt>Instance time zone</dt>
            <dd data-testid="instance-time-zone" translate="no">
              {formatZone(me.data.time_zone)}
            </dd>
            <dt>This screen’s times</dt>
            <dd data-testid="screen-time-zone" translate="no">
              {formatZone(screenZone)}
            </dd>
          </dl>
        )}
        <p className="bo-muted">Every time on these screens names its zone. CSV exports are in UTC, and say so in their last column, time_zone.</p>
      </section>
    </div>
  );
}
