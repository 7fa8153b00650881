import { z } from "zod";

/**
 * The Coze Studio canvas JSON (what `SaveWorkflowRequest.schema` carries), as written by Coze Studio
 * itself: see ../shared/COZE.md §2.2–2.6 and the golden canvases in corpus/coze. Strict where the
 * format is fixed (type ids, value blocks, edges, ports, the node shapes the exporter writes), loose
 * (`.loose()`, `unknown`) where real canvases vary or carry editor-only data.
 */

/** Numeric node type ids, as strings (COZE.md §2.3). */
export const COZE_NODE_TYPES = {
  entry: "1",
  exit: "2",
  llm: "3",
  plugin: "4",
  code: "5",
  knowledgeRetriever: "6",
  selector: "8",
  subWorkflow: "9",
  databaseCustomSql: "12",
  outputEmitter: "13",
  textProcessor: "15",
  questionAnswer: "18",
  break: "19",
  setVariable: "20",
  loop: "21",
  intentDetector: "22",
  knowledgeIndexer: "27",
  batch: "28",
  continue: "29",
  inputReceiver: "30",
  comment: "31",
  variableAggregator: "32",
  assignVariable: "40",
  httpRequester: "45",
} as const;

const KNOWN_TYPE_IDS = new Set([
  "1",
  "2",
  "3",
  "4",
  "5",
  "6",
  "8",
  "9",
  "12",
  "13",
  "15",
  "18",
  "19",
  "20",
  "21",
  "22",
  "27",
  "28",
  "29",
  "30",
  "31",
  "32",
  "37",
  "38",
  "39",
  "40",
  "42",
  "43",
  "44",
  "45",
  "46",
  "51",
  "52",
  "53",
  "54",
  "55",
  "56",
  "57",
  "58",
  "59",
  "60",
  "1000",
]);

export const ENTRY_ID = "100001";
export const EXIT_ID = "900001";

/** Block value types (`BlockInput.type`, `Variable.type`). */
export const CozeValueTypeSchema = z.enum(["string", "integer", "float", "boolean", "object", "list"]);
export type CozeValueType = z.infer<typeof CozeValueTypeSchema>;

export const RawMetaSchema = z.object({ type: z.number().int() }).loose();

export const RefContentSchema = z
  .object({
    source: z.enum(["block-output", "global_variable_app", "global_variable_user", "global_variable_system"]),
    // Placeholder refs (an unset binary body, an unused dynamic option) carry empty ids.
    blockID: z.string(),
    name: z.string(),
    path: z.array(z.string()).optional(),
  })
  .loose();
export type RefContent = z.infer<typeof RefContentSchema>;

const LiteralValue = z
  .object({ type: z.literal("literal"), content: z.unknown(), rawMeta: RawMetaSchema.optional() })
  .loose();
const RefValue = z
  .object({ type: z.literal("ref"), content: RefContentSchema, rawMeta: RawMetaSchema.optional() })
  .loose();
/** An object assembled field by field: the fields are Params in the BlockInput's `schema`. */
const ObjectRefValue = z
  .object({ type: z.literal("object_ref"), content: z.unknown().optional(), rawMeta: RawMetaSchema.optional() })
  .loose();

export const BlockValueSchema = z.discriminatedUnion("type", [LiteralValue, RefValue, ObjectRefValue]);
export type BlockValue = z.infer<typeof BlockValueSchema>;

export interface CozeVariable {
  name: string;
  type: CozeValueType;
  required?: boolean;
  description?: string;
  defaultValue?: unknown;
  assistType?: number;
  readonly?: boolean;
  /** Object: the fields; list: the element. */
  schema?: CozeVariable[] | CozeVariableShape;
  [k: string]: unknown;
}
/** A list's element: a Variable without a name. */
export interface CozeVariableShape {
  type: CozeValueType;
  assistType?: number;
  schema?: CozeVariable[] | CozeVariableShape;
  [k: string]: unknown;
}

const VariableShapeSchema: z.ZodType<CozeVariableShape> = z.lazy(() =>
  z
    .object({
      type: CozeValueTypeSchema,
      assistType: z.number().optional(),
      schema: z.union([z.array(VariableSchema), VariableShapeSchema]).optional(),
    })
    .loose(),
);

/** An output field (`Variable`, COZE.md §2.5). */
export const VariableSchema: z.ZodType<CozeVariable> = z.lazy(() =>
  z
    .object({
      name: z.string(),
      type: CozeValueTypeSchema,
      required: z.boolean().optional(),
      description: z.string().optional(),
      defaultValue: z.unknown().optional(),
      assistType: z.number().optional(),
      readonly: z.boolean().optional(),
      schema: z.union([z.array(VariableSchema), VariableShapeSchema]).optional(),
    })
    .loose(),
);

export interface CozeBlockInput {
  type: CozeValueType;
  assistType?: number;
  schema?: unknown;
  value: BlockValue;
  [k: string]: unknown;
}

export const BlockInputSchema: z.ZodType<CozeBlockInput> = z
  .object({
    type: CozeValueTypeSchema,
    assistType: z.number().optional(),
    // Lists: the element Variable shape; object_ref: the field Params; object: the fields.
    schema: z.unknown().optional(),
    value: BlockValueSchema,
  })
  .loose();

/** An input field: `{name, input: BlockInput}`. */
export const ParamSchema = z.object({ name: z.string(), input: BlockInputSchema }).loose();
export type CozeParam = z.infer<typeof ParamSchema>;

export const SettingOnErrorSchema = z
  .object({
    switch: z.boolean().optional(),
    processType: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
    dataOnErr: z.string().optional(),
    retryTimes: z.number().int().min(0).optional(),
    timeoutMs: z.number().int().min(0).optional(),
    ext: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const NodeMetaSchema = z
  .object({
    title: z.string().optional(),
    description: z.string().optional(),
    icon: z.string().optional(),
    subTitle: z.string().optional(),
    mainColor: z.string().optional(),
  })
  .loose();

const PositionSchema = z.object({ x: z.number(), y: z.number() }).loose();

// ------------------------------------------------------------------------------------------------
// Per-node `data.inputs` shapes for the node types the exporter writes (COZE.md §2.6)

const ConditionOperand = z.object({ input: BlockInputSchema }).loose();
export const ConditionSchema = z
  .object({
    operator: z.number().int().min(1).max(16),
    left: ConditionOperand,
    right: ConditionOperand.optional(),
  })
  .loose();

const SelectorInputs = z
  .object({
    branches: z.array(
      z
        .object({
          condition: z
            .object({ logic: z.union([z.literal(1), z.literal(2)]), conditions: z.array(ConditionSchema) })
            .loose(),
        })
        .loose(),
    ),
  })
  .loose();

const ExitInputs = z
  .object({
    terminatePlan: z.enum(["returnVariables", "useAnswerContent"]),
    inputParameters: z.array(ParamSchema),
    content: BlockInputSchema.optional(),
    streamingOutput: z.boolean().optional(),
  })
  .loose();

const LlmInputs = z
  .object({
    inputParameters: z.array(ParamSchema),
    llmParam: z.array(ParamSchema),
    settingOnError: SettingOnErrorSchema.optional(),
    fcParam: z.unknown().optional(),
  })
  .loose();

const CodeInputs = z
  .object({
    code: z.string(),
    // 3 Python, 5 JavaScript (the open-source backend only runs Python; canvases may still hold 5).
    language: z.union([z.literal(3), z.literal(5)]),
    inputParameters: z.array(ParamSchema),
    settingOnError: SettingOnErrorSchema.optional(),
  })
  .loose();

const TextProcessorInputs = z
  .object({
    method: z.enum(["concat", "split"]),
    inputParameters: z.array(ParamSchema),
    concatParams: z.array(ParamSchema).optional(),
    splitParams: z.array(ParamSchema).optional(),
  })
  .loose();

const OutputEmitterInputs = z
  .object({ content: BlockInputSchema, inputParameters: z.array(ParamSchema), streamingOutput: z.boolean().optional() })
  .loose();

const AggregatorInputs = z
  .object({ mergeGroups: z.array(z.object({ name: z.string(), variables: z.array(BlockInputSchema) }).loose()) })
  .loose();

const LoopInputs = z
  .object({
    loopType: z.enum(["array", "count", "infinite"]),
    loopCount: BlockInputSchema.optional(),
    inputParameters: z.array(ParamSchema),
    variableParameters: z.array(ParamSchema).optional(),
  })
  .loose();

const BatchInputs = z
  .object({ batchSize: BlockInputSchema, concurrentSize: BlockInputSchema, inputParameters: z.array(ParamSchema) })
  .loose();

const IntentInputs = z
  .object({
    inputParameters: z.array(ParamSchema),
    intents: z.array(z.object({ name: z.string() }).loose()),
    mode: z.string(),
    llmParam: z.record(z.string(), z.unknown()),
    settingOnError: SettingOnErrorSchema.optional(),
  })
  .loose();

const HttpInputs = z
  .object({
    apiInfo: z.object({ method: z.string(), url: z.string() }).loose(),
    headers: z.array(ParamSchema),
    params: z.array(ParamSchema),
    body: z
      .object({
        bodyType: z.enum(["EMPTY", "JSON", "RAW_TEXT", "FORM_DATA", "FORM_URLENCODED", "BINARY"]),
        bodyData: z.record(z.string(), z.unknown()).optional(),
      })
      .loose(),
    auth: z
      .object({ authOpen: z.boolean(), authType: z.enum(["BEARER_AUTH", "CUSTOM_AUTH"]).optional() })
      .loose()
      .optional(),
    setting: z.object({ timeout: z.number(), retryTimes: z.number() }).loose().optional(),
    settingOnError: SettingOnErrorSchema.optional(),
  })
  .loose();

const KnowledgeInputs = z.object({ datasetParam: z.array(ParamSchema), inputParameters: z.array(ParamSchema) }).loose();

/** Data shape per type id; types the exporter never writes are only checked as the generic shape. */
const INPUT_SHAPES: Record<string, z.ZodType> = {
  "2": ExitInputs,
  "3": LlmInputs,
  "5": CodeInputs,
  "6": KnowledgeInputs,
  "8": SelectorInputs,
  "13": OutputEmitterInputs,
  "15": TextProcessorInputs,
  "21": LoopInputs,
  "22": IntentInputs,
  "28": BatchInputs,
  "32": AggregatorInputs,
  "45": HttpInputs,
};

/** Loop and Batch outputs are Params (refs to inner nodes); all others are Variables. */
const OutputField = z.union([VariableSchema, ParamSchema]);

const NodeDataSchema = z
  .object({
    nodeMeta: NodeMetaSchema.optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    outputs: z.array(OutputField).optional(),
    version: z.string().optional(),
    settingOnError: z.unknown().optional(),
  })
  .loose();

export interface CozeNode {
  id: string;
  type: string;
  meta: { position: { x: number; y: number }; canvasPosition?: { x: number; y: number }; [k: string]: unknown };
  data: {
    nodeMeta?: z.infer<typeof NodeMetaSchema>;
    inputs?: Record<string, unknown>;
    outputs?: Array<CozeVariable | CozeParam>;
    version?: string;
    [k: string]: unknown;
  };
  blocks?: CozeNode[] | null;
  edges?: CozeEdge[] | null;
  [k: string]: unknown;
}

export const EdgeSchema = z
  .object({
    sourceNodeID: z.string().min(1),
    targetNodeID: z.string().min(1),
    sourcePortID: z.string().optional(),
    targetPortID: z.string().optional(),
  })
  .loose();
export type CozeEdge = z.infer<typeof EdgeSchema>;

export const NodeSchema: z.ZodType<CozeNode> = z.lazy(() =>
  z
    .object({
      id: z.string().regex(/^\d+$/, "Coze node ids are numeric strings"),
      type: z.string().refine((t) => KNOWN_TYPE_IDS.has(t), { message: "unknown Coze node type id" }),
      meta: z.object({ position: PositionSchema, canvasPosition: PositionSchema.optional() }).loose(),
      data: NodeDataSchema,
      blocks: z.array(NodeSchema).nullish(),
      edges: z.array(EdgeSchema).nullish(),
    })
    .loose()
    .superRefine((node, ctx) => {
      const shape = INPUT_SHAPES[node.type];
      if (shape) {
        const r = shape.safeParse(node.data.inputs);
        if (!r.success) {
          for (const iss of r.error.issues) {
            ctx.addIssue({ code: "custom", path: ["data", "inputs", ...iss.path], message: iss.message });
          }
        }
      }
      const composite = node.type === "21" || node.type === "28";
      if (!composite && node.blocks && node.blocks.length > 0) {
        ctx.addIssue({ code: "custom", path: ["blocks"], message: "only Loop (21) and Batch (28) nodes hold blocks" });
      }
    }),
);

export const CanvasSchema = z
  .object({
    nodes: z.array(NodeSchema),
    edges: z.array(EdgeSchema),
    versions: z.record(z.string(), z.string()).optional(),
  })
  .loose()
  .superRefine((canvas, ctx) => {
    const entries = canvas.nodes.filter((n) => n.type === "1");
    const exits = canvas.nodes.filter((n) => n.type === "2");
    if (entries.length !== 1 || entries[0]?.id !== ENTRY_ID) {
      ctx.addIssue({
        code: "custom",
        path: ["nodes"],
        message: `a canvas has exactly one Entry (type 1) node, id ${ENTRY_ID}`,
      });
    }
    if (exits.length !== 1 || exits[0]?.id !== EXIT_ID) {
      ctx.addIssue({
        code: "custom",
        path: ["nodes"],
        message: `a canvas has exactly one Exit (type 2) node, id ${EXIT_ID}`,
      });
    }
    checkEdges(canvas.nodes, canvas.edges, [], ctx);
  });

export interface CozeCanvas {
  nodes: CozeNode[];
  edges: CozeEdge[];
  versions?: Record<string, string>;
  [k: string]: unknown;
}

/** Every edge joins nodes of its own (sub-)canvas; a composite's inner edges may also touch the composite. */
function checkEdges(
  nodes: readonly CozeNode[],
  edges: readonly CozeEdge[],
  /** Path of the object holding `nodes`/`edges` (the canvas, or a composite node as `blocks`). */
  at: (string | number)[],
  ctx: z.RefinementCtx,
  containerId?: string,
): void {
  const nodesKey = containerId ? "blocks" : "nodes";
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ids = new Set(byId.keys());
  if (containerId) ids.add(containerId);
  edges.forEach((e, i) => {
    for (const end of ["sourceNodeID", "targetNodeID"] as const) {
      if (!ids.has(e[end])) {
        ctx.addIssue({
          code: "custom",
          path: [...at, "edges", i, end],
          message: `edge ${end} "${e[end]}" is not a node of this canvas`,
        });
      }
    }
    const why = portProblem(e, byId, containerId);
    if (why) ctx.addIssue({ code: "custom", path: [...at, "edges", i], message: why });
  });
  nodes.forEach((n, i) => {
    if (n.blocks && n.blocks.length > 0) {
      checkEdges(n.blocks, n.edges ?? [], [...at, nodesKey, i], ctx, n.id);
    }
  });
}

const INLINE = {
  "21": { out: "loop-function-inline-output", in: "loop-function-inline-input", next: "loop-output" },
  "28": { out: "batch-function-inline-output", in: "batch-function-inline-input", next: "batch-output" },
} as const;

/**
 * The ports an edge may use (COZE.md §2.4): Selector `true`/`true_N`/`false`, IntentDetector and
 * QuestionAnswer `branch_N`/`default`, the error ports `default`/`branch_error`, and the Loop/Batch
 * inline ports inside a composite. An empty or absent port is the default one.
 */
function portProblem(e: CozeEdge, byId: Map<string, CozeNode>, containerId?: string): string | undefined {
  const port = e.sourcePortID ?? "";
  if (containerId && e.sourceNodeID === containerId) {
    return port.endsWith("-function-inline-output")
      ? undefined
      : `an edge from the composite inside its body must use its inline output port, not "${port}"`;
  }
  if (containerId && e.targetNodeID === containerId) {
    const tp = e.targetPortID ?? "";
    return tp.endsWith("-function-inline-input")
      ? undefined
      : `an edge back to the composite must use its inline input port, not "${tp}"`;
  }
  const src = byId.get(e.sourceNodeID);
  if (!src || port === "") return undefined;
  if (port === "default" || port === "branch_error") return undefined;
  const inline = INLINE[src.type as keyof typeof INLINE];
  if (inline)
    return port === inline.next ? undefined : `a ${src.type} node leaves through "${inline.next}", not "${port}"`;
  if (src.type === "8") {
    const m = /^true(?:_(\d+))?$/.exec(port);
    if (port === "false") return undefined;
    const branches = (src.data.inputs?.branches as unknown[] | undefined)?.length ?? 0;
    if (m && Number(m[1] ?? 0) < branches) return undefined;
    return `Selector port "${port}" does not name one of its ${branches} branches (true, true_1, …, false)`;
  }
  if (src.type === "22" || src.type === "18") {
    if (/^branch_\d+$/.test(port)) return undefined;
    return `port "${port}" is not branch_N or default`;
  }
  return `a type ${src.type} node has no port "${port}"`;
}

export type CanvasParseResult = ReturnType<typeof CanvasSchema.safeParse>;

export function parseCanvas(value: unknown): CanvasParseResult {
  return CanvasSchema.safeParse(value);
}
