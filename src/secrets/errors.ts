import { WeftError } from "../ir/errors.js";

/**
 * A problem with the secret key or a sealed value: `secret.bad_key` (WEFT_SECRET_KEY or the key file does not
 * hold 32 bytes), `secret.key_file_open` (the key file is readable by others), `secret.key_missing` (secrets are
 * stored but no key is there), `secret.wrong_key` (a stored secret does not open with the key).
 */
export class SecretKeyError extends WeftError {}

/**
 * Bad input to the environment variables of an app: `env.bad_name`, `env.bad_value`, `env.bad_type`,
 * `env.not_found`, `app.not_found`.
 */
export class EnvError extends WeftError {}
