import { sandboxBankTransfer } from './sandbox-bank-transfer';
import { sandboxCard } from './sandbox-card';
import { sandboxMomo } from './sandbox-momo';
import type { ProviderRegistry } from './types';

/** Test integrations use the sandbox providers; a live connector would be registered here beside them. */
export const sandboxProviders: ProviderRegistry = {
  momo: sandboxMomo,
  card: sandboxCard,
  bank_transfer: sandboxBankTransfer,
};
