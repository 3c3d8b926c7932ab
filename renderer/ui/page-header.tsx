import type { ReactNode } from 'react';

export function PageHeader({ title, actions }: { title: string; actions?: ReactNode }) {
  return (
    <div className="ui-page-header">
      <h1 className="ui-page-header__title">{title}</h1>
      {actions && <div className="ui-page-header__actions">{actions}</div>}
    </div>
  );
}
