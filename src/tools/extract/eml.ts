import PostalMime from "postal-mime";
import { DocumentError } from "../errors.js";
import { htmlToText } from "./html.js";
import type { ExtractLimits } from "./limits.js";

/** Headers worth reading (From, To, Cc, Date, Subject), a blank line, then the body as text. */
export async function emlToText(bytes: Uint8Array, limits: ExtractLimits): Promise<string> {
  try {
    const email = await PostalMime.parse(bytes);
    const addr = (a: { name?: string; address?: string } | undefined) =>
      a ? (a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? "")) : "";
    const head: string[] = [];
    if (email.from) head.push(`From: ${addr(email.from)}`);
    if (email.to?.length) head.push(`To: ${email.to.map(addr).join(", ")}`);
    if (email.cc?.length) head.push(`Cc: ${email.cc.map(addr).join(", ")}`);
    if (email.date) head.push(`Date: ${email.date}`);
    if (email.subject) head.push(`Subject: ${email.subject}`);
    const body = email.text?.trim() || (email.html ? htmlToText(email.html, limits, "EML file") : "");
    const attachments = email.attachments.map((a) => a.filename).filter(Boolean);
    if (attachments.length) head.push(`Attachments: ${attachments.join(", ")}`);
    return `${head.join("\n")}\n\n${body}`.trim();
  } catch (e) {
    if (e instanceof DocumentError) throw e;
    throw new DocumentError("document.extract_failed", `EML file: ${(e as Error).message}`);
  }
}
