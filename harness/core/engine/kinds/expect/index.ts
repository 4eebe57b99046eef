/** The engine's generic expectation kinds; suites add their own through their plugin (engine/plugin.ts). */
import type { ExpectationKind } from '../types.js';
import { authRefused, errorCode, errorMessage, errorWellFormed, isError, success, wellFormed } from './reply-status.js';
import { arrayLength, field, increments } from './field.js';
import { differsFrom, sameAs } from './compare.js';
import { matches, schema } from './schema.js';
import { distinctCount, each, some } from './group.js';
import { tasksListed, validActions } from './domain.js';
import { countMatching, errorMatches, everyItem, item } from './collection.js';

export const GENERIC_EXPECTATION_KINDS: readonly ExpectationKind[] = [
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
  everyItem,
  errorMatches,
];
