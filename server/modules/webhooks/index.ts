/**
 * The webhooks module's public face. For other modules: which addresses a webhook may not call,
 * and a new endpoint secret. For the app: the outbox of the Deps, the dispatcher, the backlog
 * /readyz and /metrics read, the back-office routes and the `webhooks:*` commands.
 */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { checkWebhookUrl, ownAddresses, type OwnAddress } from './url-policy';
export { newWebhookSecret } from './signing';
export { createOutbox, type Outbox } from './outbox';
export { createDispatcher } from './dispatcher';
export { webhookBacklog } from './backlog';
export { webhookCommands } from './cli';

export const webhookRoutes = lazyPlugin(async () => (await import('./webhooks.routes')).webhookRoutes);
