import { sandboxBankTransfer } from './sandbox-bank-transfer';
import { sandboxMomo } from './sandbox-momo';
import type { ProviderRegistry } from './types';

/** Test integrations use the sandbox providers; a live connector would be registered here beside them. */
export const sandboxProviders: ProviderRegistry = {
  momo: sandboxMomo,
  bank_transfer: sandboxBankTransfer,
};
