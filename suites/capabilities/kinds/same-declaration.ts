/**
 * `same_declaration`: the capability declaration this transport's profile read is the one the
 * run's other agent transports read (interface spec 1: the same tasks and schemas run on MCP and
 * A2A). Compared: `supported_protocols` as a set, and which protocol blocks (one per agent kind's
 * protocol, and `compliance_testing`) are declared: what the agent says it serves. No call is made:
 * the profiles already hold each transport's answer, so both columns show the same verdict. A run
 * with one agent transport, or a peer that gave no declaration, has nothing to compare.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AgentProfile } from '../../../harness/core/engine/profile.js';
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';
import { AGENT_KIND_DEFS } from '../../../harness/core/protocol/agent-kinds.js';

const BLOCKS = [...Object.values(AGENT_KIND_DEFS).map((d) => d.protocol), 'compliance_testing'];

/** What a declaration says the agent serves, in a comparable form. */
function served(caps: Record<string, unknown>): { supported_protocols: string[] | null; blocks: string[] } {
  const sp = caps.supported_protocols;
  return {
    supported_protocols: Array.isArray(sp) ? [...new Set(sp.map(String))].sort() : null,
    blocks: BLOCKS.filter((b) => caps[b] !== undefined).sort(),
  };
}

const comparable = (p: AgentProfile) => p.transport !== 'rest' && p.capabilities !== undefined;

export const sameDeclaration: StepKind = {
  name: 'same_declaration',
  fields: {},
  async run(_step, ctx) {
    const mine = ctx.profile.capabilities;
    const peers = ctx.peers.filter(comparable);
    if (mine === undefined || peers.length === 0) {
      return {
        verdict: {
          status: 'not_applicable',
          message: 'the run has no second agent transport whose capability declaration can be compared with this one',
        },
      };
    }
    const here = served(mine);
    for (const peer of peers) {
      const there = served(peer.capabilities as Record<string, unknown>);
      if (!isDeepStrictEqual(here, there)) {
        return {
          verdict: {
            status: 'failed',
            message: `the capability declaration over ${ctx.kind} differs from the one over ${peer.transport}: ${JSON.stringify(here)} vs ${JSON.stringify(there)}`,
            expected: { [peer.transport]: there },
            actual: { [ctx.kind]: here },
          },
        };
      }
    }
    ctx.notes.push(`the same supported_protocols and protocol blocks over ${[ctx.kind, ...peers.map((p) => p.transport)].join(' and ')}`);
    return { verdict: { status: 'ok' } };
  },
};
