/** Usage errors: one line naming the problem, exit code 2, never a stack trace. */
export class UsageError extends Error {}

export const MAIN_HELP = `proto-comply — conformance and compliance harness for protocol agents (MCP and A2A)

Usage:
  proto-comply run [--agent URL] [options]      certify an agent (default: the built-in mock seller)
  proto-comply mock seller [--port N] [...]     run the reference mock seller
  proto-comply vectors --kind K --dir DIR       run RFC 9421 signature vectors through the verifier
  proto-comply --version | --help

Run "proto-comply run --help" for the run options.`;

export const RUN_HELP = `Usage: proto-comply run [options]

Certifies an agent over MCP and/or A2A and writes the reports. Without --agent it starts the
built-in mock seller on an ephemeral loopback port, certifies it and stops it.

  --agent URL         agent URL: an MCP endpoint (…/mcp), an agent card URL, an A2A endpoint (…/a2a)
                      or a base URL (MCP at <base>/mcp, card at <base>/.well-known/agent-card.json)
  --mcp-url URL       override the MCP endpoint
  --a2a-url URL       override the A2A agent card or endpoint
  --transport T       mcp | a2a | both (default both)
  --suite IDS         comma-separated suite ids (default: all)
  --check GLOBS       comma-separated check id globs, e.g. 'idempotency.replay.*'
  --token T           protocol token used in identifiers (default proto)
  --auth-token T      bearer token for the agent (or env PROTO_COMPLY_AUTH_TOKEN); never written to reports
  --out DIR           report directory (default ./compliance-report/)
  --budget-s N        run budget in seconds; unfinished checks are recorded as not run
  --seed N            seed for generated keys, names and dates (default: random, recorded)
  --concurrency N     checks in flight at once (default 4)
  --timeout-s N       total timeout of one call in seconds (default 30)
  --strict            SHOULD failures fail the run too
  --json              print the agent-compliance JSON to stdout (progress and summary go to stderr)

Exit codes: 0 every MUST passed on a complete run; 1 a MUST failed or was not testable;
2 usage error; 3 agent unreachable or auth required; 4 run incomplete (budget) with no failure.`;
