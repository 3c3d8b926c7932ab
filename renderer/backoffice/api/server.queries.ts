import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from './client';

/** queryOptions factories for the server itself; each feature keeps its own in features/<area>/. */
export const serverQueries = {
  health: () =>
    queryOptions({
      queryKey: ['server', 'health'] as const,
      queryFn: ({ signal }) => apiRequest<{ status: string }>('/healthz', { signal }),
      refetchInterval: 30_000,
    }),
  /** The desktop app's version, or null in a browser (no preload bridge). */
  desktopVersion: () =>
    queryOptions({
      queryKey: ['desktop', 'version'] as const,
      queryFn: async () => (window.paydesk ? window.paydesk.appVersion() : null),
      staleTime: Infinity,
    }),
};
