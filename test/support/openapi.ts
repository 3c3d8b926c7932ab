import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: unknown;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  responses: Record<string, { description: string; content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: Array<{ url: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, Record<string, unknown>> };
}

/** The document exactly as a client downloads it: GET /docs/json. */
export async function fetchOpenApi(app: FastifyInstance): Promise<OpenApiDocument> {
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as OpenApiDocument;
}

/** Every operation as `METHOD /path` with its object. */
export function operations(doc: OpenApiDocument): Array<[string, OpenApiOperation]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, OpenApiOperation]),
  );
}
