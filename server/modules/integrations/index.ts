/** The integrations module's public face: merchants' integrations and API keys (admin and the operator CLI). */
export { createIntegration, listIntegrations, newApiKey, revokeApiKey } from './integrations.service';
