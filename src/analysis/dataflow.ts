import { formatSelector } from "../ir/selector.js";
import type { ValueType } from "../ir/types.js";
import { type Availability, computeAvailability, ERROR_OUTPUTS } from "./availability.js";
import type { DiagnosticSink } from "./codes.js";
import type { AnalysisGraph, Read } from "./graph.js";
import { parallelFork } from "./parallel.js";
import type { Resolver } from "./resolve.js";
import { checkType } from "./types.js";

export interface ResolvedRead {
  read: Read;
  type?: ValueType;
  producer?: number;
}

export interface DataflowResult {
  reads: ResolvedRead[];
  availability: Availability;
}

/**
 * Every read must resolve (reserved heads, node, declared output, scope), be available on every path
 * to the reader, and fit the slot's type. Template references report `template.unresolved` instead
 * of the ref.* codes. Reads by unreached nodes skip the availability check (already reported).
 */
export function checkDataflow(
  g: AnalysisGraph,
  reads: readonly Read[],
  resolver: Resolver,
  reached: Uint8Array,
  sink: DiagnosticSink,
  maxGuardTerms: number,
): DataflowResult {
  const resolved: ResolvedRead[] = [];
  const producers = new Set<number>();
  for (const read of reads) {
    const r = resolver.resolve(read.reader, read.selector);
    const where = { nodeId: g.nodes[read.reader]!.id, field: read.field || undefined };
    if (!r.ok) {
      if (read.template)
        sink.add("template.unresolved", `{{#${formatSelector(read.selector)}#}} does not resolve: ${r.message}`, where);
      else sink.add(r.code, r.message, where);
      resolved.push({ read });
      continue;
    }
    resolved.push({ read, type: r.type, producer: r.producer });
    if (r.producer !== undefined) producers.add(r.producer);
    checkType(g, read, r.type, sink);
  }
  const availability = computeAvailability(g, producers, reached, maxGuardTerms);
  for (const rr of resolved) {
    const { read, producer } = rr;
    if (producer === undefined || !reached[read.reader]) continue;
    const output = read.selector[1];
    if (availability.has(read.reader, producer, output)) continue;
    const reader = g.nodes[read.reader]!;
    const p = g.nodes[producer]!;
    const where = { nodeId: reader.id, field: read.field || undefined };
    const sel = formatSelector(read.selector);
    // Optional reads tolerate a missing value, but one that can never exist yet is still a mistake.
    if (!availability.may(read.reader, producer, output)) {
      const failOnly =
        output !== undefined && !ERROR_OUTPUTS.has(output) && availability.may(read.reader, producer, "error_message");
      const successOnly = output !== undefined && ERROR_OUTPUTS.has(output) && availability.may(read.reader, producer);
      const why =
        producer === read.reader
          ? `node reads its own output ${sel}`
          : failOnly
            ? `${sel} never exists when "${reader.id}" runs: it is reached only through the fail-branch of "${p.id}", where only error_message and error_type exist`
            : successOnly
              ? `${sel} never exists when "${reader.id}" runs: "${p.id}" reaches it only on success, and ${output} is written only on its fail-branch`
              : `${sel} never exists when "${reader.id}" runs: "${p.id}" is not upstream of it`;
      // A value of a parallel branch exists in Dify when that branch finished first: a race, not an error.
      const fork =
        producer === read.reader || failOnly || successOnly ? undefined : parallelFork(g, producer, read.reader);
      if (fork !== undefined) {
        const race = `${sel} is written on a branch that runs in parallel with "${reader.id}" (both start at "${g.nodes[fork]!.id}"): it exists only when "${p.id}" finishes before "${reader.id}" runs, which Dify does not order — otherwise the read finds nothing. Join the branches before reading it (connect "${p.id}" to "${reader.id}") to make it certain`;
        sink.add("ref.not_available", race, where, "warning");
        continue;
      }
      sink.add("ref.not_available", why, where, read.optional && producer !== read.reader ? "warning" : undefined);
      continue;
    }
    if (read.optional) continue;
    const why = `${sel} is not produced on every path to "${reader.id}": "${p.id}" runs when ${availability.describeGuard(producer)}, this node when ${availability.describeGuard(read.reader)}; merge the branches with a variable-aggregator or read a value that always exists`;
    sink.add("ref.not_available", why, where);
  }
  return { reads: resolved, availability };
}
