/**
 * The API's own description:
 *
 *   GET /openapi.json   OpenAPI 3.1.0 (openapi/index.ts), built once from the whole route table
 */
import { sendRaw } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { openApiDocument } from '../openapi/index.js';

/** `all`: the whole route table, this route included (read at the first request). */
export function openApiRoutes(all: () => readonly Route[]): Route[] {
  let text: string | undefined;
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      access: 'public',
      summary: 'This OpenAPI 3.1.0 description of the API',
      handle: ({ res }) => {
        text ??= JSON.stringify(openApiDocument(all()));
        sendRaw(res, 200, 'application/json; charset=utf-8', text);
      },
    },
  ];
}
