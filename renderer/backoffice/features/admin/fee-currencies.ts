/** The currencies the back office offers first (those with shipped fee defaults, the default market's first); fee rules take any ISO 4217 code. */
export const FEE_CURRENCIES = ['GHS', 'XOF', 'KES'] as const;
