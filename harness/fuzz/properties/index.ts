/**
 * Every property `proto-comply fuzz` runs, in report order. A new property (model-based
 * sequences, signature mutations, ...) is one FuzzProperty module added to this list.
 */
import type { FuzzProperty } from '../property.js';
import { nearValidRefused } from './near-valid-refused.js';
import { validAccepted } from './valid-accepted.js';
import { stateMachineModel } from '../model/media-buy-property.js';
import { signatureMutations } from '../signatures/signature-property.js';

export const FUZZ_PROPERTIES: readonly FuzzProperty[] = [nearValidRefused, validAccepted, stateMachineModel, signatureMutations];
