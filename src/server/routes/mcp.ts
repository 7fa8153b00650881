/**
 * Every app as an MCP server over streamable HTTP: `/api/apps/:id/mcp`, behind the same API keys as the
 * rest of /api. Stateless: each request gets a server for the app's published version (its tool's schema
 * follows what is published), and each call is an ordinary run of the app, stored and streamed by the hub.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { createAppMcpServer } from "../../publish/mcp.js";
import { requireApp, type ServerDeps } from "../context.js";
import { publishedVersion } from "../drafts.js";

export function mcpRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.all("/:id/mcp", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const current = await publishedVersion(deps.apps, app);
    const server = createAppMcpServer(
      current.workflow,
      async (inputs, sys) => {
        const { runId, done } = await deps.hub.start(current.workflow, { appId: app.id, inputs, sys });
        await deps.stores.runLog.tag(runId, { source: "mcp", version: current.version });
        return done;
      },
      {
        name: app.name,
        description: app.description,
        paused: {
          forms: async (runId) => (await deps.stores.forms.runForms(runId)).filter((f) => f.status === "waiting"),
          howToAnswer: (runId, f) =>
            `POST ${new URL(c.req.url).origin}/api/runs/${runId}/forms/${f.id} with this API key and the JSON body {"action": "<action id>", "inputs": {<input>: <value>}}; the run then continues`,
        },
      },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return r;
}
