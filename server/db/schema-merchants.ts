/** Row types of merchants, their integrations, API keys and webhook endpoints (the Database of schema.ts). */

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface IntegrationsTable {
  id: string;
  merchant_id: string;
  name: string;
  mode: 'test' | 'live';
  /** JSON array of rails this integration accepts. */
  allowed_rails: string;
  card_collection_mode: 'direct_card' | 'test_simulation';
  created_at: string;
  disabled_at: string | null;
  /** JSON array of the Mobile Money countries served (migration 0041); null: every country of the session's currency. */
  momo_countries?: string | null;
}

export interface ApiKeysTable {
  id: string;
  integration_id: string;
  /** First characters of the key, safe to show ("ak_test_AbCd"). */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  mode: 'test' | 'live';
  /** What the admin calls it ("Shop server"); null for keys made before names existed. */
  name: string | null;
  created_at: string;
  /** Unused: last use lives in api_key_usage (a write here would drop the key cache). */
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ApiKeyUsageTable {
  api_key_id: string;
  last_used_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  integration_id: string;
  url: string;
  /** Signing secret (needed in clear to sign); never returned by any API after creation. */
  secret: string;
  /** Previous secret while a rotation overlap lasts. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}
