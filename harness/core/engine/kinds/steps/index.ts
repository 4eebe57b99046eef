/** The engine's generic step kinds; suites add their own through their plugin (engine/plugin.ts). */
import type { StepKind } from '../types.js';
import { call } from './call.js';
import { callConcurrent } from './concurrent.js';
import { listTasks } from './list-tasks.js';
import { sessionReuse } from './session-reuse.js';
import { observedReplies, observedSchema } from './observed.js';
import { assertStep } from './assert.js';

export const GENERIC_STEP_KINDS: readonly StepKind[] = [call, callConcurrent, listTasks, sessionReuse, observedSchema, observedReplies, assertStep];
