/** The integrations module as other modules see it: merchants' integrations, API keys and webhook secrets. */
export { checkWebhookUrl, createIntegration, listIntegrations, newApiKey, newWebhookSecret, revokeApiKey } from './integrations.service';
