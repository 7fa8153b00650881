import { WeftError } from "../ir/errors.js";

/**
 * A problem with an app's tests, as the CLI (exit 2 for bad input, 1 for failing tests) and the API (4xx) say it:
 * `tests.invalid_case` (a field of a case is wrong: details name the case, field and reason),
 * `tests.case_exists`, `tests.case_not_found`, `tests.run_not_found`, `tests.run_not_finished`,
 * `tests.no_version`, `tests.no_draft`, `tests.no_cases`, `tests.invalid_file` (a side file
 * that is not a test file), `tests.bad_option`, `tests.no_judge_model` (a case has a rubric and no model is set).
 */
export class AppTestError extends WeftError {}

/** Publishing refused because the app's required tests fail: `publish.tests_failed`; details list the cases. */
export class TestGateError extends WeftError {}
