import { apiRequest, BACKOFFICE_API } from '../../api/client';
import { StaffLoginResponse } from '../../../../shared/schemas/backoffice';

export interface Credentials {
  username: string;
  password: string;
}

/**
 * POST /auth/login: 200 `{ token, user, must_change_password }` and, because the
 * page sends the CSRF header, the HttpOnly sign-in cookie; the token in the body is not kept.
 */
export function login(credentials: Credentials): Promise<StaffLoginResponse> {
  return apiRequest(`${BACKOFFICE_API}/auth/login`, { method: 'POST', body: credentials, schema: StaffLoginResponse });
}

/** POST /auth/password: 204; 400 naming `current_password` or `new_password`. */
export function changePassword(body: { current_password: string; new_password: string }): Promise<null> {
  return apiRequest<null>(`${BACKOFFICE_API}/auth/password`, { method: 'POST', body });
}
