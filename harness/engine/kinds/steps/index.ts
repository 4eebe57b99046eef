import type { StepKind } from '../types.js';
import { call } from './call.js';
import { callConcurrent } from './concurrent.js';
import { listTasks } from './list-tasks.js';
import { sessionReuse } from './session-reuse.js';
import { observedReplies, observedSchema } from './observed.js';
import { assertStep } from './assert.js';
import { SIGNATURE_STEP_KINDS } from './signatures/index.js';
import { EMISSION_STEP_KINDS } from '../../../webhooks/emission-steps.js';
import { RECEIVER_PROBE_STEP_KINDS } from '../../../webhooks/receiver-probe-kinds.js';

export const STEP_KINDS: StepKind[] = [call, callConcurrent, listTasks, sessionReuse, observedSchema, observedReplies, assertStep, ...SIGNATURE_STEP_KINDS, ...EMISSION_STEP_KINDS, ...RECEIVER_PROBE_STEP_KINDS];
