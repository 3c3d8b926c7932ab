import { formatDateTime } from './format';

/** A date and time as the payer reads it, in their language's format, inside `<time dateTime>`. */
export function When({ iso, testId }: { iso: string; testId?: string }) {
  return (
    <time dateTime={iso} data-testid={testId}>
      {formatDateTime(iso)}
    </time>
  );
}
