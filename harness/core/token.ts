/**
 * The protocol token. The interface spec writes the protocol's name inside identifiers as
 * `proto`; real agents and the public vectors use another spelling. Every token-bearing
 * identifier in the project is derived here from one value, never spelled out elsewhere.
 */
export const DEFAULT_TOKEN = 'proto';

const TOKEN_PATTERN = /^[a-z][a-z0-9]{0,31}$/;

export interface ProtocolIds {
  /** The token itself, lower case (`proto`). */
  readonly token: string;
  /** `get_<token>_capabilities` */
  readonly capabilitiesTask: string;
  /** `<token>_use`, the JWK member naming a key's purpose. */
  readonly keyUseMember: string;
  /** `<token>/request-signing/v1` */
  readonly requestSigningTag: string;
  /** `<token>/webhook-signing/v1` */
  readonly webhookSigningTag: string;
  /** `X-<TOKEN>-Signature` */
  readonly hmacSignatureHeader: string;
  /** `X-<TOKEN>-Timestamp` */
  readonly hmacTimestampHeader: string;
  /** `<token>_error`, the structured error member in MCP structuredContent / A2A data parts. */
  readonly errorMember: string;
  /** `<token>_version` */
  readonly versionMember: string;
  /** `<TOKEN>_RUNNER_WEBHOOK_BASE_URL` */
  readonly runnerWebhookEnv: string;
  /** Replace `{token}` and `{TOKEN}` placeholders in a template string. */
  expand(template: string): string;
}

export class TokenError extends Error {}

export function protocolIds(token: string = DEFAULT_TOKEN): ProtocolIds {
  if (!TOKEN_PATTERN.test(token)) {
    throw new TokenError(`invalid protocol token ${JSON.stringify(token)}: expected 1-32 lower-case letters or digits, starting with a letter`);
  }
  const upper = token.toUpperCase();
  return {
    token,
    capabilitiesTask: `get_${token}_capabilities`,
    keyUseMember: `${token}_use`,
    requestSigningTag: `${token}/request-signing/v1`,
    webhookSigningTag: `${token}/webhook-signing/v1`,
    hmacSignatureHeader: `X-${upper}-Signature`,
    hmacTimestampHeader: `X-${upper}-Timestamp`,
    errorMember: `${token}_error`,
    versionMember: `${token}_version`,
    runnerWebhookEnv: `${upper}_RUNNER_WEBHOOK_BASE_URL`,
    expand(template: string): string {
      return template.replaceAll('{token}', token).replaceAll('{TOKEN}', upper);
    },
  };
}
