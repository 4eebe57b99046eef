export {
  createSchemaValidator,
  detectWebhookFormat,
  normaliseSchemaPath,
  UnknownSchemaError,
  type SchemaError,
  type SchemaValidator,
  type SchemaValidatorOptions,
  type SchemaVerdict,
  type WebhookFormat,
  type WebhookVerdict,
} from './validator.js';
export {
  DEFAULT_SCHEMA_DIR,
  SCHEMA_BASE_URI,
  SCHEMA_DIALECT,
  SchemaLoadError,
  expandTokenPlaceholders,
  loadSchemaDocuments,
  type SchemaDocument,
} from './loader.js';
export { DEFAULT_SAMPLE_DIR, SampleNotFoundError, loadSample, loadTaskSample, sampleNames, sampleSchemaName, type SampleOptions } from './samples.js';
