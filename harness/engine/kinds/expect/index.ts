import type { ExpectationKind } from '../types.js';
import { authRefused, errorCode, errorMessage, errorWellFormed, isError, success, wellFormed } from './reply-status.js';
import { arrayLength, field, increments } from './field.js';
import { differsFrom, sameAs } from './compare.js';
import { matches, schema } from './schema.js';
import { distinctCount, each, some } from './group.js';
import { tasksListed, validActions } from './domain.js';
import { countMatching, errorMatches, item } from './collection.js';
import { EMISSION_EXPECTATION_KINDS } from '../../../webhooks/emission-expect.js';

export const EXPECTATION_KINDS: ExpectationKind[] = [
  success,
  errorCode,
  isError,
  errorWellFormed,
  errorMessage,
  authRefused,
  wellFormed,
  field,
  arrayLength,
  increments,
  sameAs,
  differsFrom,
  schema,
  matches,
  distinctCount,
  each,
  some,
  tasksListed,
  validActions,
  item,
  countMatching,
  errorMatches,
  ...EMISSION_EXPECTATION_KINDS,
];
