/**
 * Reading an upload's multipart/form-data body. The platform's parser throws one bare TypeError for
 * every malformed body (no boundary, a truncated part, a header broken by a CR/LF in the filename),
 * which reached clients as a 500 (issue 28 E); here each becomes a typed 400 naming the reason. A file
 * name with control characters is refused, not cleaned: it would reach file stores, downloads and
 * Content-Disposition headers as given.
 */
import type { HonoRequest } from "hono";
import { ApiError } from "./errors.js";

export type FormValue = string | File;
export type Form = Record<string, FormValue | FormValue[]>;

/** CR, LF, NUL, tabs and the other C0 controls, and DEL. */
const hasControl = (name: string) => [...name].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

/** The form of a request whose Content-Type the caller has checked is multipart/form-data. */
export async function readMultipart(req: HonoRequest): Promise<Form> {
  if (!/;\s*boundary=/i.test(req.header("content-type") ?? "")) {
    throw new ApiError(400, "request.bad_multipart", "the multipart/form-data Content-Type has no boundary parameter");
  }
  let form: Form;
  try {
    form = (await req.parseBody({ all: true })) as Form;
  } catch {
    throw new ApiError(
      400,
      "request.bad_multipart",
      "the multipart body cannot be read: it is truncated, its parts are not framed by the boundary, or a part header is malformed",
    );
  }
  for (const [field, value] of Object.entries(form)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v instanceof File && hasControl(v.name)) {
        throw new ApiError(
          400,
          "request.bad_filename",
          `the file name in field "${field}" contains control characters (CR, LF, NUL …): ${JSON.stringify(v.name).slice(0, 120)}`,
        );
      }
    }
  }
  return form;
}
