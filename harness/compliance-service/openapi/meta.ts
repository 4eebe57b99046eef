/** The description of the route that serves this description (routes/openapi.ts). */
import { json, type OperationGroup } from './types.js';

export const metaDocs: OperationGroup = {
  operations: [
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDescription',
      tags: ['Meta'],
      description: 'Built from the route table and the descriptions under harness/compliance-service/openapi/.',
      responses: {
        '200': json('An OpenAPI 3.1.0 document.', {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        }),
      },
    },
  ],
};
