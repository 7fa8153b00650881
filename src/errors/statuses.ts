/** CLI exit statuses: 0 ok, 1 the thing checked is invalid / the run failed, 2 usage or configuration problem. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/**
 * The API's statuses for errors that are not ApiErrors (an ApiError names its own status where it is thrown):
 * any other WeftError is the caller's bad input; the server's own database failing, or anything untyped, is ours.
 */
export const HTTP = { invalidInput: 422, serverFault: 500 } as const;
