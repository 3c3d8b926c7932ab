/** The audit module as other modules see it: recording an audit entry, and the trail as CSV. */
export { actorOf, auditCsv, recordAudit, type Actor, type AuditDeps, type AuditFilter, type AuditRecord } from './audit.service';
