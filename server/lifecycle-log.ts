import { hostname } from 'node:os';
import { buildInfo } from './version';

/**
 * The lines that mark a server's life (listening, shutting down, shutdown complete), written as
 * one JSON object each in the shape of every other log line (pino's: level, time, pid, hostname,
 * version, commit, msg), straight to stdout whatever LOG_LEVEL is: a supervisor or a test waits
 * for `listening on http://` and an operator for `shutdown complete`, even at LOG_LEVEL=warn.
 */
export function lifecycleLine(msg: string, fields: Record<string, unknown> = {}, out: NodeJS.WritableStream = process.stdout): void {
  out.write(`${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: hostname(), ...buildInfo(), ...fields, msg })}\n`);
}

/** The base fields of every log line: which process, on which host, running which build. */
export function logBase(): Record<string, unknown> {
  return { pid: process.pid, hostname: hostname(), ...buildInfo() };
}
