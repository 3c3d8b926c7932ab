import { invalid } from './errors';

/** A date-time query parameter, normalised to ISO 8601 UTC; a value that is not one names its field. */
export const iso = (field: string, v: string | undefined): string | undefined => {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw invalid(field, 'must be an ISO 8601 date-time');
  return new Date(t).toISOString();
};
