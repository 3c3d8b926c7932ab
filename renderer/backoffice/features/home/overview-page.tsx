import { useSession } from '../auth/session';
import { PageHeader } from '../../../ui/page-header';

export function OverviewPage() {
  const { session } = useSession();
  return (
    <section>
      <PageHeader title="Overview" />
      <p>Signed in as {session?.user.username}. Choose an area on the left.</p>
    </section>
  );
}
