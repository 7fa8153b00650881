import { describe, expect, it } from "vitest";
import "../../src/nodes/code.js";
import { NodeExecutionError } from "../../src/ir/errors.js";
import type { ExecContext, StaticContext } from "../../src/ir/registry.js";
import type { ExecServices, SandboxService } from "../../src/ir/services.js";
import { type WorkflowNode, WorkflowSchema } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { createSandbox } from "../../src/sandbox/index.js";

const def = nodeCatalogue.get("code");
if (!def) throw new Error("code node not registered");
const codeDef = def;

type Pool = Record<string, Record<string, unknown>>;

function node(config: Record<string, unknown>, id = "code1"): WorkflowNode {
  return { id, type: "code", title: "Code", config };
}

/** A minimal ExecContext: the pool is a `{nodeId: {var: value}}` map, as the engine would hold it. */
function context(n: WorkflowNode, pool: Pool, services: Partial<ExecServices>): ExecContext<any> {
  const workflow = WorkflowSchema.parse({ mode: "workflow", nodes: [n], edges: [] });
  return {
    workflow,
    node: n,
    config: codeDef.configSchema.parse(n.config),
    runId: "run-1",
    key: n.id,
    runInputs: {},
    attempt: 1,
    feedback: [],
    read: (sel) => {
      const [id, name] = sel;
      const scope = id === undefined ? undefined : pool[id];
      return scope && name !== undefined && name in scope ? { found: true, value: scope[name] } : { found: false };
    },
    render: (t) => t,
    emit: () => undefined,
    writeVariable: () => {
      throw new Error("not used");
    },
    runBody: () => {
      throw new Error("not used");
    },
    services: { now: () => new Date(0), random: () => 0.5, ...services },
    signal: new AbortController().signal,
  };
}

const sandbox = createSandbox({ limits: { timeoutMs: 5000 } });

async function exec(config: Record<string, unknown>, pool: Pool = {}, services: Partial<ExecServices> = { sandbox }) {
  const n = node(config);
  if (!codeDef.execute) throw new Error("code node has no executor");
  return codeDef.execute(context(n, pool, services));
}

async function execError(
  config: Record<string, unknown>,
  pool: Pool = {},
  services: Partial<ExecServices> = { sandbox },
) {
  let err: unknown;
  try {
    await exec(config, pool, services);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(NodeExecutionError);
  return err as NodeExecutionError;
}

function rules(config: Record<string, unknown>) {
  const n = node(config);
  const workflow = WorkflowSchema.parse({ mode: "workflow", nodes: [n], edges: [] });
  const ctx: StaticContext = {
    workflow,
    node: n,
    nodeById: () => undefined,
    childrenOf: () => [],
    typeOf: () => undefined,
  };
  return codeDef.rules?.(codeDef.configSchema.parse(n.config), ctx) ?? [];
}

const pyConcat = {
  variables: [
    { variable: "arg1", value_selector: ["start", "a"] },
    { variable: "arg2", value_selector: ["start", "b"] },
  ],
  code_language: "python3",
  code: "def main(arg1: str, arg2: str) -> dict:\n    return {\n        'result': (arg1 or '') + (arg2 or ''),\n    }\n",
  outputs: { result: { type: "string", children: null } },
};

describe("code node: declaration", () => {
  it("declares its outputs with their types and reads its variables", () => {
    const c = codeDef.configSchema.parse({
      ...pyConcat,
      outputs: { result: { type: "string" }, n: { type: "number" }, items: { type: "array[object]" } },
    });
    expect(codeDef.outputs(c, node(pyConcat))).toEqual([
      { name: "result", type: "string" },
      { name: "n", type: "number" },
      { name: "items", type: "array[object]" },
    ]);
    expect(codeDef.inputs(c, node(pyConcat)).map((i) => i.selector)).toEqual([
      ["start", "a"],
      ["start", "b"],
    ]);
    expect(codeDef.ports(c, node(pyConcat))).toEqual(["source"]);
  });

  it("keeps unknown Dify fields and accepts null outputs", () => {
    const c = codeDef.configSchema.parse({ ...pyConcat, outputs: null, something_new: 1 }) as Record<string, unknown>;
    expect(c.something_new).toBe(1);
    expect(codeDef.outputs(c as never, node(pyConcat))).toEqual([]);
  });

  it("rejects an unknown code language at the schema", () => {
    expect(codeDef.configSchema.safeParse({ ...pyConcat, code_language: "ruby" }).success).toBe(false);
  });
});

describe("code node: static rules", () => {
  it("finds nothing wrong with a good node", () => {
    expect(rules(pyConcat)).toEqual([]);
  });

  it("requires main", () => {
    expect(rules({ ...pyConcat, code: "def helper():\n    return {}\n" }).map((d) => d.code)).toEqual([
      "code.missing_main",
    ]);
    const js = { ...pyConcat, code_language: "javascript", code: "function other() { return {} }" };
    expect(rules(js).map((d) => d.code)).toEqual(["code.missing_main"]);
    expect(rules({ ...js, code: "const main = async ({ a }) => ({ a })" })).toEqual([]);
    expect(rules({ ...pyConcat, code: "  " }).map((d) => d.code)).toEqual(["code.empty"]);
  });

  it("flags duplicate variables, invalid output types and ignored dependencies", () => {
    const d = rules({
      ...pyConcat,
      variables: [
        { variable: "x", value_selector: ["a", "b"] },
        { variable: "x", value_selector: ["a", "c"] },
        { variable: "my-var", value_selector: [] },
      ],
      outputs: {
        ok: { type: "string" },
        bad: { type: "file" },
        o: { type: "object", children: { z: { type: "integer" } } },
      },
      dependencies: [{ name: "numpy", version: "" }],
    });
    const byCode = (code: string) => d.filter((x) => x.code === code);
    expect(byCode("code.duplicate_variable")).toHaveLength(1);
    expect(byCode("code.duplicate_variable")[0]?.field).toBe("variables[1].variable");
    expect(byCode("code.invalid_output_type").map((x) => x.field)).toEqual([
      "outputs.bad.type",
      "outputs.o.children.z.type",
    ]);
    expect(byCode("code.variable_not_identifier")).toHaveLength(1);
    expect(byCode("code.unbound_variable")).toHaveLength(1);
    expect(byCode("code.dependencies_ignored")[0]?.severity).toBe("warning");
  });
});

describe("code node: execution", () => {
  it("runs Python with the bound variables and returns the declared outputs", async () => {
    const r = await exec(pyConcat, { start: { a: "foo", b: "bar" } });
    expect(r.outputs).toEqual({ result: "foobar" });
  });

  it("runs JavaScript with one destructured object", async () => {
    const r = await exec(
      {
        ...pyConcat,
        code_language: "javascript",
        code: "function main({arg1, arg2}) {\n  return { result: arg1 + '-' + arg2 }\n}",
      },
      { start: { a: "x", b: "y" } },
    );
    expect(r.outputs).toEqual({ result: "x-y" });
  });

  it("passes a missing variable as null", async () => {
    const r = await exec(
      {
        ...pyConcat,
        code: "def main(arg1, arg2):\n    return {'result': 'none' if arg2 is None else arg2}\n",
      },
      { start: { a: "foo" } },
    );
    expect(r.outputs).toEqual({ result: "none" });
  });

  it("passes an empty file list as null, as Dify does", async () => {
    const r = await exec(
      {
        variables: [{ variable: "files", value_selector: ["start", "files"], value_type: "array[file]" }],
        code_language: "python3",
        code: "def main(files):\n    return {'is_null': files is None}\n",
        outputs: { is_null: { type: "boolean" } },
      },
      { start: { files: [] } },
    );
    expect(r.outputs).toEqual({ is_null: true });
  });

  it("applies Dify's output checks: booleans become numbers, NUL bytes are stripped", async () => {
    const r = await exec({
      variables: [],
      code_language: "python3",
      code: "def main():\n    return {'n': True, 's': 'a\\x00b', 'items': [{'k': 1}]}\n",
      outputs: { n: { type: "number" }, s: { type: "string" }, items: { type: "array[object]" } },
    });
    expect(r.outputs).toEqual({ n: 1, s: "ab", items: [{ k: 1 }] });
  });

  it("fails on an extra returned key, naming the node", async () => {
    const err = await execError({
      ...pyConcat,
      code: "def main(arg1, arg2):\n    return {'result': 'x', 'oops': 1}\n",
    });
    expect(err.code).toBe("code.output_extra");
    expect(err.nodeId).toBe("code1");
    expect(err.message).toMatch(/code1.*"oops"/);
  });

  it("fails on a missing declared output", async () => {
    const err = await execError({ ...pyConcat, code: "def main(arg1, arg2):\n    return {}\n" });
    expect(err.code).toBe("code.output_missing");
    expect(err.details.path).toBe("result");
  });

  it("fails on a wrong output type", async () => {
    const err = await execError({ ...pyConcat, code: "def main(arg1, arg2):\n    return {'result': 5}\n" });
    expect(err.code).toBe("code.output_type");
  });

  it("accepts any keys when outputs are not declared, but checks homogeneity", async () => {
    const base = { variables: [], code_language: "javascript", outputs: null };
    const r = await exec({ ...base, code: "function main() { return { a: 1, b: ['x'] } }" });
    expect(r.outputs).toEqual({ a: 1, b: ["x"] });
    const err = await execError({ ...base, code: "function main() { return { a: [1, 'x'] } }" });
    expect(err.code).toBe("code.output_not_homogeneous");
  });

  it("turns sandbox failures into node errors with the sandbox code and the user's line", async () => {
    const err = await execError({
      ...pyConcat,
      code: "def main(arg1, arg2):\n    x = 1\n    raise ValueError('bad input')\n",
    });
    expect(err.code).toBe("sandbox.runtime_error");
    expect(err.nodeId).toBe("code1");
    expect(err.message).toMatch(/ValueError: bad input/);
    expect(err.details.line).toBe(3);
    const forbidden = await execError({
      ...pyConcat,
      code: "import subprocess\ndef main(arg1, arg2):\n    return {}\n",
    });
    expect(forbidden.code).toBe("sandbox.forbidden");
  });

  it("uses the node's timeout_seconds as the sandbox deadline", async () => {
    const seen: unknown[] = [];
    const spy: SandboxService = {
      async run(req) {
        seen.push(req.limits);
        return { result: "ok" };
      },
    };
    await exec({ ...pyConcat, timeout_seconds: 2 }, {}, { sandbox: spy });
    expect(seen).toEqual([{ timeoutMs: 2000 }]);
  });

  it("fails clearly when no sandbox is configured", async () => {
    const err = await execError(pyConcat, {}, {});
    expect(err.code).toBe("sandbox.not_configured");
    expect(err.nodeId).toBe("code1");
  });
});
