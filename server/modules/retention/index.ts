/** The retention module's public face: the `db:stats` and `db:prune` commands of the operator CLI. */
export { dbCommands } from './cli';
