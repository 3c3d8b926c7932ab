import { apiRequest, BACKOFFICE_API } from '../../api/client';
import type { StaffSession } from './session';

export interface Credentials {
  username: string;
  password: string;
}

/** POST /auth/login (CONTRACT §3): 200 `{ token, user }`, 401 UNAUTHORIZED on wrong credentials. */
export function login(credentials: Credentials): Promise<StaffSession> {
  return apiRequest<StaffSession>(`${BACKOFFICE_API}/auth/login`, { method: 'POST', body: credentials });
}
