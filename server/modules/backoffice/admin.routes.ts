import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app';

/** Administration: merchants, integrations, keys, endpoints, fee rules, banks, staff, sandbox actions. */
export async function adminRoutes(_app: FastifyInstance, _deps: AppDeps): Promise<void> {}
