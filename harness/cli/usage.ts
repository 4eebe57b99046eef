/** Usage errors: one line naming the problem, exit code 2, never a stack trace. */
export class UsageError extends Error {}

export const MAIN_HELP = `proto-comply — conformance and compliance harness for protocol agents (MCP and A2A)

Usage:
  proto-comply run [--agent URL] [options]      certify an agent (default: the built-in mock seller and buyer)
  proto-comply fuzz [--agent URL] [options]     property-based fuzzing of task requests (fast-check)
  proto-comply proxy --upstream URL [options]   reverse proxy in front of an agent: passive audit of live traffic
  proto-comply registry serve|probe [...]       the registry's Agent Compliance backend: probe a fleet on a schedule, or once
  proto-comply badge verify TOKEN --jwks URL|FILE  verify a registry's badge token offline (one line: valid / invalid)
  proto-comply mock seller [--port N] [...]     run the reference mock seller
  proto-comply mock buyer --db FILE [...]       run the reference mock buyer (a durable webhook receiver)
  proto-comply mock registry [--port N] [...]   run the reference mock registry (REST face and discovery files)
  proto-comply vectors --kind K --dir DIR       run RFC 9421 signature vectors through the verifier
  proto-comply keys [--jwks|--agent-config|--serve]  the harness's test counterparty keys (signatures suite)
  proto-comply baseline --from REPORT [--out F] write an expected-failures baseline from a run's report
  proto-comply summary --from REPORT [--format md|text]  print a run's summary (md: for $GITHUB_STEP_SUMMARY)
  proto-comply diff BEFORE AFTER [--format text|json|md]  what regressed, was fixed or changed between two reports
  proto-comply rules [--untested] [--doc D] [--json]  the spec rules and the checks that test them (traceability)
  proto-comply --version | --help

Run "proto-comply run --help" for the run options.`;

export const RUN_HELP = `Usage: proto-comply run [options]

Certifies an agent over MCP and/or A2A and writes the reports. Without --agent it starts the
built-in mock seller, mock buyer and mock registry on ephemeral loopback ports, certifies the
seller, the buyer's webhook receiver and the registry, and stops them. With --receiver and no
--agent it certifies only a buyer's webhook receiver (webhook-receiver suite); with --registry and
no --agent, only a registry (registry suite).

  --agent URL         agent URL: an MCP endpoint (…/mcp), an agent card URL, an A2A endpoint (…/a2a)
                      or a base URL (MCP at <base>/mcp, card at <base>/.well-known/agent-card.json)
  --mcp-url URL       override the MCP endpoint
  --a2a-url URL       override the A2A agent card or endpoint
  --transport T       mcp | a2a | both (default both)
  --suite IDS         comma-separated suite ids (default: all)
  --storyboards PATH  run a storyboard bundle (a directory with index.json, or one storyboard file)
                      instead of the built-in suites: one check per step, storyboard.<id>.<phase>.<step>
  --schemas DIR       one protocol line's released JSON Schemas (e.g. the spec's dist/schemas/3.0.6/, the
                      SDK's dist/lib/schemas-data/3.0/): where their line is --target, storyboards'
                      response_schema validations judge with them and the schemas suite judges replies
                      against them too; another line judges nothing (said in the report). Without it a
                      storyboard bundle's set is looked for beside the bundle; else the harness's own
  --check GLOBS       comma-separated check id globs, e.g. 'idempotency.replay.*'
  --token T           protocol token used in identifiers (default proto)
  --target LINE       protocol line to judge against: 3.0, 3.1 or 3.2 (default 3.1, the newest released
                      line); rules of other lines are not applicable, and each rule is judged in this
                      line's shape; every report states the target beside what the agent declares
  --lifecycle-stage S development | testing | production | deprecated: what the agent is (default: testing
                      when it declares a sandbox test controller, production otherwise); rules of
                      production deployments only (plain-http push URLs refused) are judged at production
  --auth-token T      bearer token for the agent (or env PROTO_COMPLY_AUTH_TOKEN); never written to reports
  --allow-card-origin use an agent card url on an origin --agent, --mcp-url, --a2a-url do not name
                      (otherwise A2A is unusable and nothing is sent there);
                      the bearer token stays with the named origins
  --send-token-to-card-origin  the same, and send the bearer token to that origin too
  --deny-private      refuse reserved addresses (loopback, private, link-local, CGNAT, multicast, every
                      IANA special-purpose range) for the agent, its card url, brand.json and JWKS;
                      each host is resolved once and connections are pinned to the checked address
  --allow-host H      with --deny-private, let this host name, address or CIDR block through
                      (repeatable, e.g. --allow-host 127.0.0.1 --allow-host 10.0.0.0/8)
  --connect-to HOST:PORT:CONNECT_HOST:CONNECT_PORT  as curl's: connections to HOST:PORT go to
                      CONNECT_HOST:CONNECT_PORT; URLs, Host, TLS name and the token's origin stay
                      HOST:PORT (repeatable; an empty field matches any / keeps the request's own;
                      IPv6 in brackets); --deny-private judges CONNECT_HOST. E.g. certify
                      http://seller.test/ on a local port: --connect-to seller.test:80:127.0.0.1:4000
  --out DIR           report directory (default ./compliance-report/)
  --budget-s N        run budget in seconds (default 1800); unfinished checks are recorded as not run
  --seed N            seed for generated keys, names and dates (default: random, recorded)
  --concurrency N     checks calling the agent at once (default 4, 8 against the built-in mocks;
                      waiting checks lend their place)
  --timeout-s N       total timeout of one call in seconds (default 30)
  --strict            SHOULD failures fail the run too
  --allow-gaps        coverage gaps (an optional feature the agent lacks by design, e.g. no test
                      controller) do not keep the exit code from 0
  --require-full-coverage  incomplete coverage fails the run (exit 1)
  --fixtures FILE     agent-specific setup values (YAML): brand, brief, account(s), the product and
                      pricing option to buy with a budget, extra arguments per task (see docs/certify.md)
  --baseline FILE     expected-failures baseline (YAML, see "proto-comply baseline --help"): failures it
                      lists do not fail the run; an entry whose check no longer fails does (stale)
  --allure DIR        Allure results directory (default <out>/allure-results)
  --format F[,F...]   reports to write: json, junit, html, allure, runner-output (default all but
                      runner-output, and runner-output too with --storyboards); runner-output is the
                      storyboard bundle's runner output contract (runner-output.json) and needs --storyboards
  --json              print the agent-compliance JSON to stdout (progress and summary go to stderr)
  --receiver URL      a buyer's webhook receiver to certify (webhook-receiver suite); the harness
                      signs as a seller whose brand.json it serves on 127.0.0.1 (printed at start):
                      the receiver must trust it. Without --agent each transport column stands for
                      one webhook envelope (MCP envelope, A2A envelope)
  --receiver-state URL   read-back hook of the receiver: GET <url>?task_id=ID answers
                      {"task": {...} | null, "events": [...], "pending": N} (read-back checks need it)
  --receiver-alt URL  a second endpoint of the same receiver (dedup shared across endpoints)
  --receiver-dedup-bound N  per-sender dedup bound the receiver applies to the harness flood sender
  --sender-port N     fixed port for the harness's sender brand.json + JWKS (default ephemeral)
  --receiver-hmac URL  an endpoint of the same receiver registered for legacy HMAC-SHA256; its shared
                      secret (32+ characters) is read from $PROTO_COMPLY_RECEIVER_HMAC_SECRET. Without
                      it the HMAC checks are gaps
  --receiver-bearer URL  an endpoint of the same receiver registered for the legacy Bearer scheme; its
                      credential (32+ characters) is read from $PROTO_COMPLY_RECEIVER_BEARER_TOKEN
  --receiver-bootstrap URL  endpoints of the same receiver each registered for one of the harness's
                      bootstrap sender agents, {slot} in the URL naming it (agent-URL key discovery,
                      3.1+); with --bootstrap-port N (the agents' https port) and --bootstrap-ca-dir
                      DIR (the test CA, created when absent, for the receiver to trust)
  --registry URL      a registry to certify (registry suite, on its own rest column): its base URL
                      ({base_url}/api/registry/stats, ...)
  --api-key K         the registry's organization API key, sent as a bearer to the registry only
                      (or $PROTO_COMPLY_REGISTRY_API_KEY); without it the checks that need one are gaps.
                      The registration check registers a test agent proto-comply-<hex>.example
  --publisher DOMAIN|URL  a publisher's adagents.json to certify (discovery suite, rest column): a domain
                      (https://DOMAIN/.well-known/adagents.json), the file's URL, or a base URL under
                      which /.well-known/adagents.json lives; --adagents URL is the same flag
  --brand DOMAIN|URL  a brand's brand.json to certify, with the key sets and identity agents it names
                      (discovery suite): a domain, the file's URL or a base URL, as for --publisher

Outcomes: pass; fail / warn / info (a MUST / SHOULD / MAY rule broken); not applicable; blocked
(not verified because another check failed first: reports group the cascade into one line); gap
(not verified because the agent lacks an optional feature, or the budget ran out); error (the
harness broke).

Exit codes: 0 every MUST that ran passed and coverage is complete (gaps allowed with --allow-gaps);
1 a MUST failed (or a SHOULD under --strict; with --baseline a failure it does not list, or a stale
entry; with --require-full-coverage incomplete coverage); 2 usage error; 3 agent unreachable, refused
(--deny-private) or auth required; 4 coverage incomplete with no failure (gaps, budget, checks blocked by excused failures);
5 the harness itself broke (a check ended in error, or the run: status error; the report is still written).`;

export const BASELINE_HELP = `Usage: proto-comply baseline --from REPORT [--out FILE]

Writes an expected-failures baseline from a finished run: one entry per check that failed the run
(per transport when it failed on one transport only), with the failure as its reason. Pass it to
"proto-comply run --baseline FILE": listed failures then do not fail the run, and an entry whose
check no longer fails fails the run as stale, so the baseline only shrinks.

  --from REPORT   the run's agent-compliance.json (e.g. compliance-report/agent-compliance.json)
  --out FILE      where to write it (default ./proto-comply.baseline.yaml; "-" for stdout)

File format (YAML):
  version: 1
  expected_failures:
    - check: errors.unknown-task.invalid-request   # a check id
      transport: a2a                               # optional; default: every transport
      reason: why this failure is accepted for now`;

export const SUMMARY_HELP = `Usage: proto-comply summary --from REPORT [--format md|text]

Prints the summary of a finished run from its agent-compliance.json: "md" (default) is GitHub
Markdown for $GITHUB_STEP_SUMMARY or a pull-request comment; "text" is the console summary.`;

export const DIFF_HELP = `Usage: proto-comply diff BEFORE.json AFTER.json [--format text|json|md]

Compares two runs' agent-compliance.json check by check (a check id on one transport) and lists
what regressed, what was fixed, what else changed, and the checks only one run has.

  Regressed  fails the run now and did not before (pass, not applicable, blocked, gap → fail;
             a SHOULD warning when the after run is --strict), or passed before and is not
             verified now (pass → blocked, gap or error)
  Fixed      failed the run before and is verified without failing now (fail → pass)
  Changed    any other change (blocked → pass, not applicable → pass, pass → not applicable, ...)
  Added / Removed  checks only the after / the before run has

A warning line says when the runs do not compare like for like (another agent URL, target line,
suite or check selection, transports, --strict, lifecycle stage or harness version).

  --format F   text (default), json (every change, with the after run's message) or md (GitHub
               Markdown for $GITHUB_STEP_SUMMARY or a pull-request comment)

Exit codes: 0 nothing regressed; 1 a check regressed; 2 usage error (a missing or invalid report).`;

export const RULES_HELP = `Usage: proto-comply rules [--untested] [--doc interface-spec|digest] [--json]

Prints the traceability map (suites/traceability/): every normative rule of the interface spec and
the digest (id, level, section, a one-line paraphrase) with the check ids that test it, or
"untested: <category>: <reason>"; then one summary line per document (rules, tested, untested by
category).

  --untested    list only the untested rules (the summary still counts them all)
  --doc D       only one document: interface-spec or digest
  --json        the same as JSON: {docs: [{doc, summary, rules}]}`;
