import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from './client';

/** queryOptions factories for the server itself; each feature keeps its own in features/<area>/. */
export const serverQueries = {
  health: () =>
    queryOptions({
      queryKey: ['server', 'health'] as const,
      // Also names the server's build (version and commit): the footer's About line.
      queryFn: ({ signal }) => apiRequest<{ status: string; version?: string; commit?: string }>('/healthz', { signal }),
      // Every 30 s while the server answers; every 5 s once it does not, so the header turns back
      // to "Server online" soon after a central server (or the network to it) comes back.
      refetchInterval: (query) => (query.state.status === 'error' ? 5_000 : 30_000),
      refetchIntervalInBackground: true,
    }),
  /** Embedded or client of a central server (desktop only; null in a browser). */
  desktopConnection: () =>
    queryOptions({
      queryKey: ['desktop', 'connection'] as const,
      queryFn: async () => (window.paydesk ? window.paydesk.connection() : null),
      staleTime: Infinity,
    }),
  /** The desktop app's version, or null in a browser (no preload bridge). */
  desktopVersion: () =>
    queryOptions({
      queryKey: ['desktop', 'version'] as const,
      queryFn: async () => (window.paydesk ? window.paydesk.appVersion() : null),
      staleTime: Infinity,
    }),
};
