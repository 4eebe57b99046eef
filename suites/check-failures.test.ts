/**
 * Checks no fault of the mock seller can break alone, proven able to fail: each test runs the
 * built-in check through the engine against a scripted agent that violates the check's rule and
 * asserts a failing outcome. suites/testing/failing-tests.ts names these tests per check id;
 * suites/check-coverage.test.ts keeps that map honest.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { certify } from '../harness/certify/index.js';
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

  it('webhook-receiver.delivery.valid-accepted fails against a receiver that refuses a valid signed delivery', async () => {
    // Every other receiver check sends this same valid delivery first, so a mock buyer fault that
    // refused it would fail half the suite with it; a stub receiver that answers 422 shows the check alone.
    const stub = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"unhandled_status"}'));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/webhooks`;
      const run = await certify({ receiverUrl: url, checkGlob: 'webhook-receiver.delivery.valid-accepted', seed: '20261122' });
      const results = run.checks.filter((c) => c.check_id === 'webhook-receiver.delivery.valid-accepted');
      expect(results.map((c) => c.transport).sort()).toEqual(['a2a', 'mcp']);
      for (const r of results) {
        expect(r.outcome).toBe('fail');
        expect(r.message).toMatch(/HTTP 422/);
      }
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });
});
