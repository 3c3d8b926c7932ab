import { PageHeader } from '../../../ui/page-header';

/** Stands in for an area that is not built yet (or not open to this role). */
export function PlaceholderPage({ title, body }: { title: string; body: string }) {
  return (
    <section>
      <PageHeader title={title} />
      <p className="placeholder">{body}</p>
    </section>
  );
}
