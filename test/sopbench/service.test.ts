import { describe, expect, it } from "vitest";
import { providerIdOf, SopBenchError, SopBenchToolService } from "../../src/eval/sopbench/index.js";
import type { ToolService } from "../../src/ir/services.js";

describe("SopBenchToolService", () => {
  it("lists JSON-schema tool specs and invokes tools by providerId", async () => {
    const svc: ToolService = new SopBenchToolService("referral_abuse_detection_v1");
    const specs = (await svc.list?.()) ?? [];
    expect(specs.map((s) => s.name)).toEqual([
      "investigate_account",
      "analyze_traffic_patterns",
      "determine_enforcement_action",
    ]);
    expect(specs[0]?.parameters).toMatchObject({ type: "object", properties: { account_id: { type: "string" } } });
    const r = await svc.invoke({
      providerId: providerIdOf("referral_abuse_detection_v1"),
      toolName: "investigate_account",
      parameters: { account_id: "ACC100000" },
    });
    expect(r.files).toEqual([]);
    expect(r.json[0]).toMatchObject({ account_id: "ACC100000", address_validity: false, connected_accounts: 20 });
    expect(JSON.parse(r.text)).toEqual(r.json[0]);
  });

  it("bare-string results come back as text with no json", async () => {
    const svc = new SopBenchToolService("traffic_spoofing_detection");
    const r = await svc.invoke({
      providerId: "sopbench/traffic_spoofing_detection",
      toolName: "ValidateReferralSources",
      parameters: { partner_id: "PARTNER101", unattributed_clicks: 989, top_referral_source: "popup-ads.com" },
    });
    expect(r).toEqual({ text: "FAILED", files: [], json: [] });
  });

  it("rejects a foreign provider, bad arguments and tool refusals with typed errors", async () => {
    const svc = new SopBenchToolService("dangerous_goods");
    await expect(
      svc.invoke({ providerId: "sopbench/customer_service", toolName: "x", parameters: {} }),
    ).rejects.toMatchObject({
      code: "sopbench.unknown_provider",
    });
    await expect(
      svc.invoke({ providerId: svc.providerId, toolName: "calculate_disposal_score", parameters: { product_id: 1 } }),
    ).rejects.toMatchObject({
      code: "sopbench.invalid_args",
      details: {
        tool: "calculate_disposal_score",
        issues: expect.arrayContaining([{ path: "disposal_guidelines", reason: "is required" }]),
      },
    });
    const refusal = await svc
      .invoke({
        providerId: svc.providerId,
        toolName: "calculate_sds_label_score",
        parameters: { product_id: "P_13415", sds_label_text: "x" },
      })
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SopBenchError);
    expect(refusal).toMatchObject({ code: "sopbench.tool_error", details: { tool: "calculate_sds_label_score" } });
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(
      svc.invoke({
        providerId: svc.providerId,
        toolName: "calculate_disposal_score",
        parameters: {},
        signal: ctrl.signal,
      }),
    ).rejects.toMatchObject({ code: "sopbench.aborted" });
  });

  it("list() hands out copies", () => {
    const svc = new SopBenchToolService("order_fulfillment");
    const a = svc.list();
    (a[0] as { name: string }).name = "mutated";
    expect(svc.list()[0]?.name).toBe("check_inventory");
  });
});
