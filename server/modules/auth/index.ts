/** The auth module as other modules see it: staff roles and sign-in, merchant API keys. */
export { allow, requireStaff, type StaffContext } from './staff-auth';
export { staffErrors } from './staff-api';
export { merchantErrors, merchantOf, merchantSecurity } from './merchant-api';
export { createStaff } from './staff.service';
export { adminChangeRole, adminResetPassword } from './staff-password';
