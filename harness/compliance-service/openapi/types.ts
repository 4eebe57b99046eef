/**
 * What a route's OpenAPI description is made of. Each route group has one file here listing an
 * `OperationDoc` per route (matched to the route table by method and path template) and the
 * component schemas it uses; index.ts assembles them. The summary and who may call it come from the
 * route table itself (http/router.ts), so they cannot drift; everything else is said here.
 */
import type { Method } from '../http/router.js';

/** A JSON Schema 2020-12 schema (OpenAPI 3.1 Schema Object). */
export type Schema = Record<string, unknown>;

export interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description: string;
  schema: Schema;
}

export interface ResponseDoc {
  description: string;
  /** Media type → schema; none for a reply without a body (204). */
  content?: Record<string, { schema: Schema }>;
  headers?: Record<string, { description: string; schema: Schema }>;
}

export interface OperationDoc {
  method: Method;
  /** The route's path template, exactly as in the route table (`{name}` segments). */
  path: string;
  /** The digest's operation name where it gives one (getAgentCompliance), else ours in the same style. */
  operationId: string;
  tags: string[];
  description?: string;
  parameters?: ParameterDoc[];
  requestBody?: { required: boolean; description?: string; content: Record<string, { schema: Schema }> };
  /** Status code → response, or a `$ref` to a shared one (common.ts `errors`). */
  responses: Record<string, ResponseDoc | { $ref: string }>;
}

/** One file's worth: its operations and the component schemas they `$ref`. */
export interface OperationGroup {
  operations: OperationDoc[];
  schemas?: Record<string, Schema>;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A JSON reply of `schema`. */
export const json = (description: string, schema: Schema, headers?: ResponseDoc['headers']): ResponseDoc => ({
  description,
  content: { 'application/json': { schema } },
  ...(headers ? { headers } : {}),
});

/** A JSON request body of `schema`. */
export const jsonBody = (schema: Schema, description?: string): NonNullable<OperationDoc['requestBody']> => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

/** A nullable form of a type (`['string', 'null']`). */
export const orNull = (type: string): string[] => [type, 'null'];
