/** The tiny released-style schema set authored for the tests (fixtures/schema-set: version 3.0.0-fixture, line 3.0). */
import { fileURLToPath } from 'node:url';

export const SCHEMA_SET_FIXTURE = fileURLToPath(new URL('../../../../fixtures/schema-set/', import.meta.url));
