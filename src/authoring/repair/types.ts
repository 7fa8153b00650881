/** Failure kinds the auto-repairs handle; `other` is everything fed back to the model instead. */
export type RepairKind = "fences" | "tags" | "json" | "topology" | "selection" | "reference";

export interface RepairRecord {
  kind: RepairKind;
  detail: string;
}

export interface AnswerSections {
  nodeSelection?: string;
  designPrinciple?: string;
  workflow?: string;
}
