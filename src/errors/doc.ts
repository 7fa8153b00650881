import { ERROR_CATALOGUE, type ErrorEntry } from "./catalogue.js";
import { RENAMED_CODES } from "./renamed.js";

const statuses = (s: readonly number[]) => (s.length ? s.join(", ") : "—");

/** One entry as `weft errors CODE` prints it. */
export function describeError(e: ErrorEntry): string {
  return [
    `${e.code}`,
    `  area:     ${e.area}`,
    `  kind:     ${e.kind}${e.severity ? ` (${e.severity} by default)` : ""}`,
    `  HTTP:     ${statuses(e.http)}`,
    `  exit:     ${statuses(e.exit)}`,
    `  message:  ${e.message}`,
    `  fix:      ${e.hint}`,
  ].join("\n");
}

/** Markdown table cells: no pipes or line breaks, code spans kept. */
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ");

function areaSection(area: string, entries: ErrorEntry[]): string[] {
  const rows = entries.map(
    (e) =>
      `| \`${e.code}\` | ${e.kind}${e.severity ? ` (${e.severity})` : ""} | ${statuses(e.http)} | ${statuses(e.exit)} | ${cell(e.message)} |`,
  );
  const hints = new Set(entries.map((e) => e.hint));
  const fix = hints.size === 1 ? [`Fix: ${[...hints][0]}`, ""] : [];
  const own = hints.size === 1 ? [] : entries.map((e) => `- \`${e.code}\`: ${e.hint}`);
  return [
    `## ${area}`,
    "",
    ...fix,
    "| code | kind | HTTP | exit | message |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    ...(own.length ? [...own, ""] : []),
  ];
}

/** docs/errors.md, generated from the catalogue by `weft errors --markdown`; a test fails when the file is stale. */
export function renderErrorsDoc(): string {
  const byArea = new Map<string, ErrorEntry[]>();
  for (const e of ERROR_CATALOGUE.values()) byArea.set(e.area, [...(byArea.get(e.area) ?? []), e]);
  const areas = [...byArea.keys()].sort();
  const renamed = Object.entries(RENAMED_CODES).map(([from, to]) => `| \`${from}\` | \`${to}\` |`);
  return [
    "# Error codes",
    "",
    "<!-- Generated from src/errors/ by `weft errors --markdown > docs/errors.md`; do not edit by hand. -->",
    "",
    `Every code Weft raises or reports (${ERROR_CATALOGUE.size}), spelled \`area.reason\`. \`weft errors CODE\` prints one.`,
    "",
    "- **kind**: `error` is thrown and ends the request or command; `report` is an entry in a result (a",
    "  diagnostic, an import warning, a failed run's error); `dify` is a code of Dify's service API, kept in",
    "  Dify's spelling so Dify clients keep working.",
    "- **HTTP**: the statuses the API answers it with (an ApiError's own status; 422 for any other error; 500",
    "  for the server's database). **exit**: the `weft` exit statuses it ends a command with (1 invalid or",
    "  failed, 2 usage or configuration). `—`: it never surfaces there on its own.",
    "- **message**: as written where it is raised; `{…}` is a value filled in. A `*` in a code is a part",
    "  computed at run time.",
    "",
    `Areas: ${areas.map((a) => `[${a}](#${a})`).join(", ")}.`,
    "",
    ...areas.flatMap((a) => areaSection(a, byArea.get(a) ?? [])),
    "## Renamed codes",
    "",
    "Issue 38 gave every code one spelling. Clients matching on an old code should match on the new one. Dify's",
    "own service-API codes (`not_found`, `invalid_param`, the file route's `file_not_found`, …) are unchanged.",
    "",
    "| old code | new code |",
    "|---|---|",
    ...renamed,
    "",
  ].join("\n");
}
