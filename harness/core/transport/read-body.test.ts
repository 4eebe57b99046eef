import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from './read-body.js';

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

describe('readBody', () => {
  it('reads a body to its end', async () => {
    const read = await readBody(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 100);
    expect(read.end).toBe('complete');
    expect(text(read.chunks)).toBe('abcd');
    expect(read.size).toBe(4);
  });

  it('stops where the sink says so and leaves the rest readable, in order', async () => {
    const body = new PassThrough();
    body.write('first\n');
    body.write('second\n');
    const read = await readBody(body, 100, (chunk) => chunk.toString().includes('first'));
    expect(read.end).toBe('stopped');
    expect(text(read.chunks)).toBe('first\n');
    body.end('third\n');
    const rest: string[] = [];
    for await (const c of body) rest.push(String(c));
    expect(rest.join('')).toBe('second\nthird\n');
  });

  it('keeps exactly the cap of an oversized body and reports it', async () => {
    const read = await readBody(Readable.from([Buffer.alloc(6, 'a'), Buffer.alloc(6, 'b')]), 8);
    expect(read.end).toBe('too_large');
    expect(text(read.chunks)).toBe('aaaaaabb');
    expect(read.size).toBe(8);
  });

  it('reports a stream that closes before its end, with what arrived', async () => {
    const body = new PassThrough();
    body.write('part');
    setImmediate(() => body.destroy());
    const read = await readBody(body, 100);
    expect(read.end).toBe('error');
    expect(text(read.chunks)).toBe('part');
  });

  it('reports a stream error', async () => {
    const body = new PassThrough();
    setImmediate(() => body.destroy(new Error('connection reset')));
    const read = await readBody(body, 100);
    expect(read).toMatchObject({ end: 'error', error: { message: 'connection reset' } });
  });
});
