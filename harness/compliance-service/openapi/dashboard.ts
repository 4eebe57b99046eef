/** Descriptions of the operator dashboard's routes (routes/dashboard.ts): HTML pages and their assets. */
import { AGENT_URL_PARAM } from './common.js';
import type { OperationDoc, OperationGroup } from './types.js';

const page = (path: string, operationId: string, description: string, withAgent: boolean): OperationDoc => ({
  method: 'GET',
  path,
  operationId,
  tags: ['Dashboard'],
  description,
  ...(withAgent ? { parameters: [AGENT_URL_PARAM] } : {}),
  responses: { '200': { description: 'An HTML page (same-origin CSP).', content: { 'text/html': { schema: { type: 'string' } } } } },
});

export const dashboardDocs: OperationGroup = {
  operations: [
    page('/', 'getDashboard', 'The fleet: status, streak, last check, badges, next probe.', false),
    page(
      '/agents/{encodedUrl}',
      'getDashboardAgent',
      "One agent: standing, badges, history with what flipped; the owner's parts are loaded by the page's script with a key.",
      true,
    ),
    {
      method: 'GET',
      path: '/dashboard.css',
      operationId: 'getDashboardStylesheet',
      tags: ['Dashboard'],
      responses: { '200': { description: 'The stylesheet.', content: { 'text/css': { schema: { type: 'string' } } } } },
    },
    {
      method: 'GET',
      path: '/dashboard.js',
      operationId: 'getDashboardScript',
      tags: ['Dashboard'],
      responses: { '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } } },
    },
  ],
};
