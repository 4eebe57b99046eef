/**
 * Checks that no fault profile of the mocks targets, each with the unit test that makes it fail:
 * `check id → "<test file> > <test name>"`. Only for rules no fault can break alone (the check's
 * probe is what every other check of its suite relies on); everything else gets a fault.
 * suites/check-coverage.test.ts keeps this map and the fault registries honest.
 */
export const FAILING_TESTS: Readonly<Record<string, string>> = {
  // The capabilities reply is what the engine profiles before any suite: a seller that cannot
  // answer it loses every capability-gated check with it.
  'capabilities.task.answers': 'suites/check-failures.test.ts > capabilities.task.answers fails when the capabilities task answers with an error',
  // Every other receiver check sends the same valid delivery first.
  'webhook-receiver.delivery.valid-accepted':
    'suites/check-failures.test.ts > webhook-receiver.delivery.valid-accepted fails against a receiver that refuses a valid signed delivery',
};
