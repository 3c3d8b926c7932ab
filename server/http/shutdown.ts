import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';

/**
 * While the server closes, requests still arriving on open connections (keep-alive, pipelined)
 * are refused with 503 SERVICE_UNAVAILABLE in the error envelope, and the connection closes.
 * Fastify's own `return503OnClosing` answer has a body of its own shape, so it is turned off
 * (app.ts) and this hook, the first one, answers instead.
 */
export function registerShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback style, as every hook that runs on each request: no promise and microtask per hook.
  app.addHook('onRequest', (_req, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    throw new AppError('SERVICE_UNAVAILABLE', 'the server is shutting down; retry on a new connection shortly');
  });
}
