import { WeftError } from "../ir/errors.js";

/**
 * A trigger that cannot start a run: `trigger.not_found`, `trigger.disabled`, `trigger.app_unpublished`,
 * `trigger.node_missing` (the published version has no such trigger node), `trigger.not_a_trigger`,
 * `trigger.plugin_unsupported`. Details name the trigger, app and node.
 */
export class TriggerError extends WeftError {}
