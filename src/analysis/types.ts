import { formatSelector } from "../ir/selector.js";
import { isAssignable, type ValueType } from "../ir/types.js";
import type { DiagnosticSink } from "./codes.js";
import type { AnalysisGraph, Read } from "./graph.js";

/** A read whose slot declares `expects` must get a value of an assignable declared type. */
export function checkType(g: AnalysisGraph, read: Read, actual: ValueType, sink: DiagnosticSink): void {
  if (!read.expects || isAssignable(actual, read.expects)) return;
  sink.add(
    "type.mismatch",
    `${formatSelector(read.selector)} is ${actual} but ${read.field || "this input"} expects ${read.expects}`,
    { nodeId: g.nodes[read.reader]!.id, field: read.field || undefined },
  );
}
