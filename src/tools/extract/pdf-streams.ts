import { constants, inflateSync } from "node:zlib";
import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";

const STREAM = Buffer.from("stream");
const ENDSTREAM = Buffer.from("endstream");
/** How far back from `stream` the stream's dictionary may start. */
const DICT_WINDOW = 4096;

/**
 * Refuse a PDF whose Flate streams inflate past the limit, before pdf.js decodes them: pdf.js has no
 * bound of its own and inflates a stream whole into buffers outside the V8 heap (a 2.6 MB file with
 * a 1 GB stream ran for minutes). zlib's maxOutputLength stops each inflate at the remaining budget,
 * so a bomb costs at most the limit in memory and milliseconds in time. Image streams are skipped:
 * text extraction never decodes them, and photos legitimately inflate large. Streams zlib cannot
 * read (encrypted, other filters) are left to pdf.js, under the thread's time and heap limits.
 */
export function assertPdfStreamsBounded(pdf: Uint8Array, limits: ExtractLimits): void {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  let budget = limits.maxUncompressedBytes;
  let at = buf.indexOf(STREAM);
  while (at >= 0) {
    const next = streamData(buf, at);
    if (next) {
      const { start, end, dict } = next;
      if (/\/(FlateDecode|Fl)\b/.test(dict) && !/\/Subtype\s*\/Image\b/.test(dict)) {
        budget -= inflatedSize(buf.subarray(start, end), budget, limits);
      }
      at = buf.indexOf(STREAM, end + ENDSTREAM.length);
    } else {
      at = buf.indexOf(STREAM, at + STREAM.length);
    }
  }
}

/** The data of the stream whose `stream` keyword is at `at`, and its dictionary's text; undefined for `endstream`. */
function streamData(buf: Buffer, at: number): { start: number; end: number; dict: string } | undefined {
  if (at >= 3 && buf.toString("latin1", at - 3, at) === "end") return undefined;
  let start = at + STREAM.length;
  if (buf[start] === 0x0d) start++;
  if (buf[start] !== 0x0a && buf[start - 1] !== 0x0d) return undefined;
  if (buf[start] === 0x0a) start++;
  const end = buf.indexOf(ENDSTREAM, start);
  if (end < 0) return undefined;
  const head = buf.toString("latin1", Math.max(0, at - DICT_WINDOW), at);
  const dict = head.slice(head.lastIndexOf("obj") + 1);
  return { start, end, dict };
}

function inflatedSize(data: Buffer, budget: number, limits: ExtractLimits): number {
  let size: number;
  try {
    // One byte past the budget is enough to know it is exceeded.
    size = inflateSync(data, { maxOutputLength: budget + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_BUFFER_TOO_LARGE") return 0; // not zlib data: pdf.js decides, under the thread's limits
    size = budget + 1;
  }
  if (size > budget) {
    throw new DocumentError(
      "document.too_large",
      `PDF file: its streams inflate to more than ${limits.maxUncompressedBytes} bytes; the limit is ${limits.maxUncompressedBytes}`,
      { limit: "maxUncompressedBytes", maxUncompressedBytes: limits.maxUncompressedBytes },
    );
  }
  return size;
}
