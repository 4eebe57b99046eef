/** Help text of `proto-comply fuzz`. */
export const FUZZ_HELP = `Usage: proto-comply fuzz [options]
       proto-comply fuzz --replay REPORT#CHECK_ID[@mcp|@a2a] [--agent URL] [--auth-token T]

Property-based fuzzing of an agent (fast-check): requests generated from the task request schemas
(fixtures/schemas/<task>-request.json), valid ones and near-valid ones with exactly one defect the
spec states; unknown tasks; calls without valid credentials; media-buy command sequences against a
model of the state machine and the replay cache; signed requests with one defect. Without --agent it fuzzes the built-in mock seller. Results
are written as the "fuzz" suite of an agent-compliance report (JSON, JUnit, HTML, Allure).

  --agent URL         agent URL (as for run); default: the built-in mock seller
  --mcp-url URL, --a2a-url URL   endpoint overrides (as for run)
  --transport T       mcp | a2a | both (default both)
  --token T           protocol token (default proto)
  --target LINE       protocol line to judge against: 3.0, 3.1 or 3.2 (default 3.1; a replay takes its report's)
  --auth-token T      bearer token (or PROTO_COMPLY_AUTH_TOKEN)
  --fixtures FILE     agent-specific setup values (account, product), as for run
  --seed N            fast-check seed, 0..2147483647 (default random; printed and in the report)
  --runs N            cases per property and task (default 100)
  --budget-s N        stop after N seconds; unfinished checks are coverage gaps (exit 4)
  --timeout-s N       per-call timeout (default 10)
  --task NAMES        comma-separated tasks (default: capabilities,get_products,create_media_buy,
                      update_media_buy,get_media_buys and the other mutating tasks of spec 4.3:
                      sync_accounts,sync_creatives,sync_audiences,sync_catalogs,build_creative,
                      activate_signal,log_event,provide_performance_feedback; capabilities is
                      get_<token>_capabilities; a task the agent does not list is not fuzzed)
  --deny-private      refuse loopback, private and other reserved addresses (as for run)
  --allow-host H      let this host, address or CIDR block through --deny-private (repeatable)
  --out DIR           report directory (default fuzz-report)
  --json              print the agent-compliance JSON on stdout
  --replay R#ID[@T]   run exactly the shrunk counterexample of check ID in report R again:
                      re-send its recorded request bodies byte for byte (keys and accounts
                      included; seed and path when the report kept none); exit 1 if it still
                      fails, 0 if not

Progress goes to stderr: properties done, cases run, counterexamples found (one status line
rewritten at most every 200 ms on a terminal; plain lines, one per property, elsewhere).

Exit codes: 0 no property violated, 1 a property violated, 2 usage error, 3 agent unreachable,
4 the budget ran out with nothing found, 5 harness error.`;
