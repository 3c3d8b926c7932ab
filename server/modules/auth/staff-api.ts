import { ErrorEnvelope } from '../../../shared/schemas/common';

/** The error answers every back-office route declares besides its own shapes (the staff twin of merchant-api.ts). */
export const staffErrors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope };
