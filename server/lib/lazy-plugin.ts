/**
 * A route plugin that loads its file when it is registered. A module's index.ts exports its route
 * plugins this way, so whatever imports the module for something else (the report worker reading
 * finance's and the audit trail's rows, the operator CLI creating staff) does not load its routes,
 * their schemas and what they import: loaded eagerly, they made the report worker start 7 MB larger.
 * server/routes.ts awaits each registration in turn, so the routes keep their order.
 */
export function lazyPlugin<A extends unknown[]>(load: () => Promise<(...args: A) => Promise<void>>): (...args: A) => Promise<void> {
  return async (...args) => (await load())(...args);
}
