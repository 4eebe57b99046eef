/** What the capture receiver records of one webhook delivery, and what verification adds to it. */
import type { WireExchange } from '../../transport/types.js';
import type { SignatureParams } from '../../signing/parse/signature-headers.js';

export interface AnswerSpec {
  status: number;
  /** Sent as `WWW-Authenticate` (e.g. `Signature error="webhook_signature_invalid"`). */
  www_authenticate?: string;
  /** Sent as `Location` (a 3xx answer pointing elsewhere: digest 5.9 rule 4, redirects are not followed). */
  location?: string;
}

export type CaptureMode = 'signature' | 'hmac';

export interface CaptureSpec {
  /** Answers to the first deliveries, in order; every later delivery gets 200. */
  answers: AnswerSpec[];
  mode: CaptureMode;
  /** HMAC shared secret (mode `hmac`). */
  secret?: string;
  /**
   * Answer an account-level activation challenge (a body `{type: "webhook.challenge", challenge}`,
   * released 3.1 core/webhook-challenge.json) with 200 `{"challenge": <value>}`, the echo of
   * core/webhook-challenge-response.json, so the seller can activate the subscriber.
   */
  answerChallenges?: boolean;
}

export interface Delivery {
  /** 1-based position within the capture. */
  n: number;
  receivedAt: number;
  method: string;
  /** The URL as the seller addressed it (public base + path). */
  url: string;
  /** Header fields as received (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  tooLarge: boolean;
  answered: AnswerSpec;
  /** The delivery as evidence (redacted). */
  exchange: WireExchange;
  /** Filled in by verify.ts. */
  verification?: DeliveryVerification;
}

export interface DeliveryVerification {
  mode: CaptureMode;
  /** Parsed JSON body; undefined with `jsonError` when the body is not JSON. */
  json?: unknown;
  jsonError?: string;
  /** `Signature-Input` / `Signature` as sent, when both are present and parse. */
  signature?: { components: string[]; params: SignatureParams };
  signatureError?: string;
  /** Outcome of the registered mode's verification. */
  verdict: { ok: true; keyid?: string } | { ok: false; code?: string; step?: string; detail: string };
  /** Whether the signature's keyid resolves through the seller's brand declaration. */
  keyLookup?: { ok: true; agentUrl?: string; use?: string } | { ok: false; reason: string; detail: string };
}
