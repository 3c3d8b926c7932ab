import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { registerBodyLimit } from './http/body-limit';
import { registerBodyParsers } from './http/body-parsers';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/errors';
import { coerceToSchema, nestFormFields, parseUrlEncoded } from './http/form-body';
import { swaggerOptions } from './http/openapi';
import { registerPages } from './http/pages';
import { registerRateLimit } from './http/rate-limit';
import { registerHealthRoutes } from './http/readiness';
import { registerMetrics } from './http/metrics';
import { registerShutdownGate } from './http/shutdown';
import { registerHostCheck } from './http/host-check';
import { registerNulGuard } from './http/nul-guard';
import { registerSecurityHeaders } from './http/security-headers';
import { compiledSerializerCompiler, verifyResponses } from './http/serializer';
import { OneLinePerRequest, withSafeRequestLog } from './http/request-log';
import { registerRequestId, requestIdGenerator } from './http/request-id';
import { reconcileStuckAttempts } from './modules/payments';
import { searchIndexJob } from './db/search';
import { startSweeper, type Sweeper } from './jobs/sweeper';
import { foldInvoiceSummaries } from './jobs/invoice-summary-fold';
import { createDispatcher, ownAddresses, webhookBacklog, type OwnAddress } from './modules/webhooks';
import { authenticateMerchant, authenticateStaff, STAFF_COOKIE } from './modules/auth';
import { registerApiRoutes } from './routes';
import { composeDeps, type ComposeInput } from './compose';
import type { AppDeps } from './deps';

declare module 'fastify' {
  interface FastifyRequest {
    /** True when the body came as urlencoded or multipart fields (strings to coerce). */
    formEncoded?: boolean;
  }
}

export type BuildDeps = ComposeInput;

/** Builds the Fastify instance with every plugin and route; never listens. */
export async function build(given: BuildDeps): Promise<FastifyInstance> {
  const input = composeDeps(given);
  const app: FastifyInstance = Fastify({
    ...(input.logger ? { loggerInstance: withSafeRequestLog(input.logger) } : { logger: false }),
    bodyLimit: input.config.bodyLimitBytes,
    // The caller's X-Request-Id when it is a bounded token, else a fresh one (http/request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdGenerator(input.ids.token('req', 10)),
    logController: new OneLinePerRequest(), // one line per request, written when it completes
    // TRUST_PROXY (docs/deployment.md): off by default, so X-Forwarded-For cannot pick a client IP.
    trustProxy: input.config.trustProxy === false ? false : [...input.config.trustProxy],
    return503OnClosing: false, // answered in the envelope by registerShutdownGate instead
    forceCloseConnections: 'idle',
    frameworkErrors, // router errors (over-long path parameter, bad percent-encoding) in the envelope
    clientErrorHandler, // Node's parser errors and request timeouts in the envelope too
    // A request's headers and body must all arrive within REQUEST_TIMEOUT_S (a slow sender holds a
    // connection no longer); checked every second. A response may take as long as it needs.
    requestTimeout: input.config.requestTimeoutS * 1000,
    http: { headersTimeout: Math.min(input.config.requestTimeoutS * 1000, 60_000), connectionsCheckingInterval: 1000 },
  });
  let listeningBase: string | undefined; // known once the server listens; asking the socket per request is not free
  const baseUrl =
    input.baseUrl ??
    (() => {
      if (input.config.publicBaseUrl) return input.config.publicBaseUrl;
      if (listeningBase) return listeningBase;
      const addr = app.server.address() as AddressInfo | null;
      const host = input.config.host.includes(':') ? `[${input.config.host}]` : input.config.host;
      const url = `http://${host}:${addr?.port ?? input.config.port}`;
      if (addr) listeningBase = url;
      return url;
    });
  const deps: AppDeps = { ...input, baseUrl };

  app.setValidatorCompiler(validatorCompiler);
  // Responses: a serializer compiled once per route from its zod schema; tests also check each against zod.
  app.setSerializerCompiler(compiledSerializerCompiler({ verify: verifyResponses(process.env) }));
  registerRequestId(app); // echoed in X-Request-Id (and error.request_id) on every answer
  registerErrorHandling(app);
  registerShutdownGate(app);
  registerHostCheck(app, input.config);
  registerSecurityHeaders(app);
  registerBodyLimit(app, input.config.bodyLimitBytes);

  // Bodies: JSON, urlencoded and multipart, nested as customer[name] / lines[0][code].
  app.removeContentTypeParser('text/plain');
  await app.register(formbody, { parser: parseUrlEncoded, bodyLimit: input.config.bodyLimitBytes });
  registerBodyParsers(app, input.config.bodyLimitBytes); // JSON (depth-limited) and multipart, both byte-counted
  app.addHook('preValidation', (req, _reply, done) => {
    const type = req.headers['content-type'];
    const isForm = type !== undefined && (/^multipart\/form-data/i.test(type) || /^application\/x-www-form-urlencoded/i.test(type));
    if (!isForm || !req.body || typeof req.body !== 'object') return done();
    req.formEncoded = true;
    const nested = /^multipart/i.test(type) ? nestFormFields(req.body as Record<string, unknown>) : (req.body as Record<string, unknown>);
    req.body = coerceToSchema(req.routeOptions.schema?.body, nested);
    done();
  });
  registerNulGuard(app); // after the form nesting above, so a refused field is named as the JSON one would be

  await registerRateLimit(app, deps, { merchant: authenticateMerchant, staff: authenticateStaff }); // buckets by matched route: API key, payer IP, staff token, sign-in IP

  await app.register(swagger, swaggerOptions(baseUrl, STAFF_COOKIE));
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const operator = { db: deps.db, webhookBacklog: () => webhookBacklog(deps.db, deps.clock) };
  registerHealthRoutes(app, { ...operator, config: deps.config }); // /healthz (process up, build) and /readyz (database, schema, draining, webhook backlog)
  registerMetrics(app, { ...operator, config: deps.config }); // /metrics when METRICS=on or METRICS_PORT is set
  await registerPages(app); // built renderer: /backoffice/, /checkout/:reference, /assets/

  await registerApiRoutes(app, deps); // the merchant API, the hosted checkout and the back office, one scope each

  // The report worker (if one started) ends with the app; a report still streaming fails.
  app.decorate('reports', deps.reports);
  app.addHook('onClose', async () => deps.reports.close());

  // Delivery rows are written beside every event (deps.outbox), whether or not this process sends them.
  if (deps.backgroundJobs) {
    // Paydesk's own addresses are fixed once the server listens (the bound port): worked out then
    // once, not at each claim (parsing the base URLs and asking the socket were 1.4 % of a delivery's CPU).
    let ownOnceListening: OwnAddress[] | undefined;
    const ownNow = (): OwnAddress[] => {
      if (ownOnceListening) return ownOnceListening;
      const addr = app.server.address() as AddressInfo | null;
      const own = ownAddresses(deps.config, { boundPort: addr?.port, urls: [deps.baseUrl()] });
      if (addr) ownOnceListening = own;
      return own;
    };
    const dispatcher = createDispatcher({
      db: deps.db,
      clock: deps.clock,
      outbox: deps.outbox,
      retryDelaysS: deps.config.webhookRetryDelaysS,
      // Never call ourselves: HOST with the port actually bound, PUBLIC_BASE_URL (webhooks/url-policy.ts).
      ownAddresses: ownNow,
      log: app.log,
    });
    app.decorate('webhookDispatcher', dispatcher);
    app.addHook('onReady', async () => dispatcher.start());
    // Waits for attempts in flight (bounded), then flushes their outcomes, before the database closes.
    app.addHook('onClose', async () => dispatcher.stop());
  }
  if (deps.backgroundJobs) {
    let sweeper: Sweeper | undefined;
    app.addHook('onReady', async () => {
      sweeper = startSweeper(deps.db, deps, 1000, (err) => app.log.error({ err }, 'sweeper failed'), [() => reconcileStuckAttempts(deps), () => foldInvoiceSummaries(deps.db), searchIndexJob(deps.db)]);
    });
    app.addHook('onClose', async () => sweeper?.stop());
  }

  return app;
}
