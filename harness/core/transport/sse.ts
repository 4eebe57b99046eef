/**
 * Server-sent events reader for streamable-HTTP replies: feeds chunks to eventsource-parser and
 * picks the JSON-RPC response whose id matches the request, ignoring notifications, server
 * requests and other ids. Bounded by an event count (the HTTP client bounds the bytes).
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { tooDeepMessage } from './bounded-json.js';
import { pickResponse, tryParseJson, type JsonRpcResponse } from './jsonrpc.js';

export const DEFAULT_MAX_SSE_EVENTS = 1_000;

export interface SsePicker {
  /** Feed raw bytes; returns true once reading can stop (response found or event bound hit). */
  feed(chunk: Buffer): boolean;
  /** The matching response, when one arrived. */
  found(): JsonRpcResponse | undefined;
  /** The body ended: dispatch a last event that lacked its blank-line terminator. */
  end(): void;
  events(): number;
  /** True when an event was refused for nesting too deep. */
  tooDeep(): boolean;
  notes(): string[];
}

export function createSsePicker(id: number | string, maxEvents = DEFAULT_MAX_SSE_EVENTS, redact: (text: string) => string = (t) => t): SsePicker {
  // A StringDecoder keeps a character split across chunks whole, as TextDecoder's stream mode does, and costs less to make.
  const decoder = new StringDecoder('utf8');
  const notes: string[] = [];
  let response: JsonRpcResponse | undefined;
  let count = 0;
  let ignored = 0;
  let done = false;
  let deep = false;
  // Every event counts against the bound: keep-alives, non-JSON and too-deep events included.
  const counted = (): void => {
    if (!done && count >= maxEvents) {
      done = true;
      notes.push(`stopped reading the SSE stream after ${maxEvents} events without a response to id ${String(id)}`);
    }
  };
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      count += 1;
      if (event.data === '') return counted(); // priming / keep-alive event
      const parsed = tryParseJson(event.data);
      if (!parsed.ok) {
        if (parsed.tooDeep) {
          deep = true;
          if (notes.length < 5) notes.push(`SSE event ${count}: ${tooDeepMessage('the event data')}`);
        } else if (notes.length < 5) notes.push(`SSE event ${count} is not JSON: ${redact(event.data).slice(0, 120)}`);
        return counted();
      }
      const match = pickResponse(parsed.value, id);
      if (match) {
        response = match;
        done = true;
        return;
      }
      ignored += 1;
      counted();
    },
    onError(err) {
      if (notes.length < 5) notes.push(`SSE parse error: ${err.message}`);
    },
  });
  return {
    feed(chunk) {
      if (done) return true;
      parser.feed(decoder.write(chunk));
      return done;
    },
    found() {
      return response;
    },
    end() {
      if (done) return;
      const rest = decoder.end();
      if (rest) parser.feed(rest);
      parser.reset({ consume: true });
    },
    events() {
      return count;
    },
    tooDeep() {
      return deep;
    },
    notes() {
      const extra = ignored > 0 ? [`ignored ${ignored} SSE event(s) that were not the response to id ${String(id)}`] : [];
      return [...notes, ...extra];
    },
  };
}
