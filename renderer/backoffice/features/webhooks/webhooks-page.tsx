import { Card, Empty, PageTitle } from '../common/ui';

export function WebhooksPage() {
  return (
    <div className="bo-page">
      <PageTitle title="Webhooks" subtitle="Delivery log, redelivery and endpoint health." />
      <Card>
        <Empty title="Not available yet">The webhook delivery log arrives with the webhook outbox.</Empty>
      </Card>
    </div>
  );
}
