/** The step kinds of the webhook-receiver suite (registered in engine/kinds/steps/index.ts). */
import type { StepKind } from '../engine/kinds/types.js';
import { receiverFlood } from './receiver-probe-flood.js';
import { receiverSend } from './receiver-probe-send.js';
import { receiverRequires, receiverState } from './receiver-probe-state.js';

export const RECEIVER_PROBE_STEP_KINDS: StepKind[] = [receiverRequires, receiverSend, receiverState, receiverFlood];
