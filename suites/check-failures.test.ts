/**
 * Checks no fault of the mock seller can break alone, proven able to fail: each test runs the
 * built-in check through the engine against a scripted agent that violates the check's rule and
 * asserts a failing outcome. suites/testing/failing-tests.ts names these tests per check id;
 * suites/check-coverage.test.ts keeps that map honest.
 */
import { describe, expect, it } from 'vitest';
import { answer, runBuiltinCheck, ScriptedAgent, taskError } from './testing/scripted-agent.js';

describe('checks that fail against a scripted agent', () => {
  it('capabilities.task.answers fails when the capabilities task answers with an error', async () => {
    // The profile reads the same task, so no fault of the mock could break it without taking every
    // capability-gated check down with it.
    const agent = new ScriptedAgent('mcp', (task) => (task === 'get_proto_capabilities' ? taskError('INTERNAL_ERROR') : answer({})), [
      'get_proto_capabilities',
    ]);
    const r = await runBuiltinCheck('capabilities.task.answers', agent);
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/INTERNAL_ERROR/);
  });

  it('errors.push-config.sync-task fails on an A2A failed task that carries no error object (a crash)', async () => {
    // What the A2A SDK publishes when an executor throws: a failed task with a prose text part.
    const crash = { ok: false, status: 'failed' as const, payloadSource: 'none' as const, text: 'Agent execution error: boom' };
    const agent = new ScriptedAgent('a2a', (task, _args, options) => (task === 'get_products' && options.pushNotificationConfig ? crash : answer({})), [
      'get_proto_capabilities',
      'get_products',
    ]);
    const r = await runBuiltinCheck('errors.push-config.sync-task', agent);
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/failed task is not a well-formed \{code, message\} object/);
  });
});
