import { PageTitle } from '../../../ui/blocks';

/** Stands in for an area that is not built yet (or not open to this role). */
export function PlaceholderPage({ title, body }: { title: string; body: string }) {
  return (
    <section>
      <PageTitle title={title} />
      <p className="placeholder">{body}</p>
    </section>
  );
}
