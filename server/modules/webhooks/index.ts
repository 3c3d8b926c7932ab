/** The webhooks module as other modules see it: which addresses a webhook may not call. */
export { checkWebhookUrl, ownAddresses, type OwnAddress } from './url-policy';
