/** The audit module's public face. For other modules: recording an audit entry, and the trail as CSV. For the app: its routes. */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { actorOf, auditCsv, recordAudit, type Actor, type AuditDeps, type AuditFilter, type AuditRecord } from './audit.service';

export const auditRoutes = lazyPlugin(async () => (await import('./audit.routes')).auditRoutes);
