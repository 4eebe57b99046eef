/**
 * Every property `proto-comply fuzz` runs, in report order. A new property is one FuzzProperty
 * module added to this list.
 */
import type { FuzzProperty } from '../property.js';
import { nearValidRefused } from './near-valid-refused.js';
import { validAccepted } from './valid-accepted.js';
import { unknownTaskRefused } from './unknown-task-refused.js';
import { pushConfigWellFormed } from './push-config-well-formed.js';
import { authRefused } from './auth-refused.js';
import { stateMachineModel, validActionsModel } from '../model/media-buy-property.js';
import { signatureMutations } from '../signatures/signature-property.js';

/** The properties of one request each (every case is one call): fast, and independent of one another. */
export const REQUEST_PROPERTIES: readonly FuzzProperty[] = [nearValidRefused, validAccepted, unknownTaskRefused, pushConfigWellFormed, authRefused];

export const FUZZ_PROPERTIES: readonly FuzzProperty[] = [...REQUEST_PROPERTIES, stateMachineModel, validActionsModel, signatureMutations];
