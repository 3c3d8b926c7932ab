import { Card, Empty, PageTitle } from '../common/ui';

export function AdminPage() {
  return (
    <div className="bo-page">
      <PageTitle title="Administration" />
      <Card>
        <Empty title="Not available yet" />
      </Card>
    </div>
  );
}
