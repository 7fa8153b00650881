import { WeftError } from "../../ir/errors.js";

/**
 * Bad input to the Chat2Workflow pass-stage evaluation: `pass.suite_not_found`, `pass.suite_invalid`
 * (the dataset dir lacks or garbles query.json / check_pass_stage.json), `pass.answers_invalid` (the
 * answers file is not a list of records), `pass.unknown_instruction` (a record names a task/round the
 * suite does not have). `details` names the file/field and the reason.
 */
export class PassEvalError extends WeftError {}
