import { z } from "zod";
import type { Workflow } from "../../ir/workflow.js";

/** Where a paused form can be answered, as Dify's service API names it (`models.human_input.ApprovalChannel`). */
export type ApprovalChannel = "email" | "web_app" | "console";

/** What a service-API caller learns about a paused form: the token it may answer with, and where else it is answered. */
export interface FormDisposition {
  form_token: string | null;
  approval_channels: ApprovalChannel[];
}

const Delivery = z
  .object({
    type: z.string(),
    enabled: z.boolean().default(true),
    config: z
      .object({
        recipients: z
          .object({ whole_workspace: z.boolean().default(false), items: z.array(z.unknown()).default([]) })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/**
 * Dify's `disposition_for_surface` for the service API: only the standalone web-app recipient's token is one an
 * `app-…` key may act on; every other recipient (email members and external addresses) is named by its channel in
 * `approval_channels` so the caller is told where approval happens instead.
 *
 * A node that declares no delivery methods (Weft-made workflows, DSL exported before Dify had them) is answered
 * through the API, as it always was in Weft: it gets the token and no other channel. A node that declares them gets
 * exactly what Dify derives from them — without an enabled web-app delivery, no token.
 */
export function formDisposition(wf: Workflow, nodeId: string, token: string | null): FormDisposition {
  const raw = wf.nodes.find((n) => n.id === nodeId)?.config.delivery_methods;
  if (!Array.isArray(raw) || raw.length === 0) return { form_token: token, approval_channels: [] };
  const methods = raw.flatMap((m) => {
    const p = Delivery.safeParse(m);
    return p.success && p.data.enabled ? [p.data] : [];
  });
  const webApp = methods.some((m) => m.type === "webapp");
  const email = methods.some(
    (m) =>
      m.type === "email" && (m.config?.recipients?.whole_workspace || (m.config?.recipients?.items.length ?? 0) > 0),
  );
  return { form_token: webApp ? token : null, approval_channels: email ? ["email"] : [] };
}
