import { describe, expect, it } from "vitest";
import { domains, loadDomain, SopBenchEnv, SopBenchError, ToolCallError } from "../../src/eval/sopbench/index.js";

function errorOf(fn: () => unknown): SopBenchError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SopBenchError) return e;
    throw e;
  }
  throw new Error("expected a SopBenchError");
}

describe("generic engine", () => {
  it("binds every tool of every domain to a toolspec and a behaviour", () => {
    const counts: Record<string, number> = {};
    for (const d of domains()) counts[d] = new SopBenchEnv(d).specs().length;
    expect(counts).toEqual({
      customer_service: 10,
      dangerous_goods: 4,
      know_your_business: 8,
      order_fulfillment: 4,
      patient_intake: 6,
      referral_abuse_detection_v1: 3,
      referral_abuse_detection_v2: 6,
      traffic_spoofing_detection: 6,
      video_annotation: 26,
      warehouse_package_inspection: 7,
    });
  });

  it("unknown tools and schema breaks are typed errors naming the field", () => {
    const env = new SopBenchEnv("referral_abuse_detection_v1");
    expect(errorOf(() => env.call("nope", {})).code).toBe("sopbench.unknown_tool");
    const missing = errorOf(() => env.call("investigate_account", {}));
    expect(missing.code).toBe("sopbench.invalid_args");
    expect(missing.details.issues).toEqual([{ path: "account_id", reason: "is required" }]);
    const wrongType = errorOf(() => env.call("investigate_account", { account_id: 5 }));
    expect(wrongType.message).toContain("account_id must be string");
    const extra = errorOf(() =>
      new SopBenchEnv("dangerous_goods").call("calculate_disposal_score", {
        product_id: "P_13307",
        disposal_guidelines: "x",
        foo: 1,
      }),
    );
    expect(extra.details.issues).toEqual([{ path: "foo", reason: "is not a parameter of this tool" }]);
    expect(env.log.map((c) => c.error?.code)).toEqual([
      "sopbench.unknown_tool",
      "sopbench.invalid_args",
      "sopbench.invalid_args",
    ]);
  });

  it("strict validation enforces patterns; structural does not; off skips the schema", () => {
    const args = { product_id: "P1_3191", sds_label_text: "Highly toxic material" };
    const strict = errorOf(() =>
      new SopBenchEnv("dangerous_goods", { validation: "strict" }).call("calculate_sds_label_score", args),
    );
    expect(strict.message).toMatch(/product_id must match pattern/);
    expect(new SopBenchEnv("dangerous_goods").call("calculate_sds_label_score", args)).toEqual({
      product_id: "P1_3191",
      sds_label_score: 5,
    });
    expect(new SopBenchEnv("dangerous_goods", { validation: "off" }).call("calculate_sds_label_score", args)).toEqual({
      product_id: "P1_3191",
      sds_label_score: 5,
    });
  });

  it("coerceArgs turns '5'-style strings into the schema's types before matching", () => {
    const env = new SopBenchEnv("customer_service", { coerceArgs: true });
    const r = env.call("getAuthenticationDetails", { account_id: "BCD-89012", is_account_id_valid: "true" });
    expect(r).toHaveProperty("authentication records");
    expect(() =>
      new SopBenchEnv("customer_service").call("getAuthenticationDetails", {
        account_id: "BCD-89012",
        is_account_id_valid: "true",
      }),
    ).toThrow(/must be boolean/);
  });

  it("tool order is file order unless a seeded shuffle is asked for", () => {
    const names = (o: object) => new SopBenchEnv("video_annotation", o).specs().map((s) => s.name);
    const file = loadDomain("video_annotation").toolSpecs.map((s) => s.name);
    expect(names({})).toEqual(file);
    const a = names({ shuffleToolSpecs: true, seed: 1 });
    expect(a).not.toEqual(file);
    expect([...a].sort()).toEqual([...file].sort());
    expect(names({ shuffleToolSpecs: true, seed: 1 })).toEqual(a);
  });

  it("logs each call with its matched row", () => {
    const env = new SopBenchEnv("referral_abuse_detection_v1");
    env.call("investigate_account", { account_id: "ACC100001" });
    expect(env.log[0]).toMatchObject({ tool: "investigate_account", matchedRowIndex: 1 });
    env.reset();
    expect(env.log).toHaveLength(0);
  });
});

describe("dangerous_goods", () => {
  const env = () => new SopBenchEnv("dangerous_goods");
  it("looks the score up by product id and echoes the id", () => {
    expect(
      env().call("calculate_handling_score", { product_id: "P_13307", handling_and_storage_guidelines: "anything" }),
    ).toEqual({
      product_id: "P_13307",
      handling_score: 4,
    });
  });
  it("reproduces the original refusals", () => {
    expect(
      errorOf(() => env().call("calculate_sds_label_score", { product_id: "P_13415", sds_label_text: "x" })).message,
    ).toBe("cannot convert float NaN to integer");
    expect(
      errorOf(() => env().call("calculate_disposal_score", { product_id: "P_99999", disposal_guidelines: "x" }))
        .message,
    ).toMatch(/No record found|No product found/);
    expect(
      errorOf(() => env().call("calculate_sds_label_score", { product_id: "P_99999", sds_label_text: "x" })).message,
    ).toBe("No product found with ID: P_99999");
    const kw = errorOf(() =>
      env().call("calculate_handling_score", {
        product_id: "P_13307",
        handling_and_storage_guidelines: "x",
        assessmentFormId: "CAF-01-0001",
      }),
    );
    expect(kw).toBeInstanceOf(ToolCallError);
    expect(kw.message).toBe("calculate_handling_score() got an unexpected keyword argument 'assessmentFormId'");
    expect(
      errorOf(() =>
        new SopBenchEnv("dangerous_goods", { validation: "off" }).call("calculate_disposal_score", {
          product_id: "P_13307",
          disposal_guidelines: "",
        }),
      ).message,
    ).toBe("Missing required parameters");
  });
});

describe("customer_service", () => {
  const env = () => new SopBenchEnv("customer_service");
  it("validateAccount: unknown id vs pattern", () => {
    expect(env().call("validateAccount", { account_id: "ZZZ-00000" })).toEqual({
      "is account id valid": false,
      reason: "Account ID ZZZ-00000 not found in records",
    });
    expect(
      new SopBenchEnv("customer_service", { validation: "off" }).call("validateAccount", { account_id: "WXY--12345" }),
    ).toMatchObject({
      "is account id valid": false,
      reason: "Invalid account ID format",
    });
  });
  it("preconditions, exact root-cause list and agent-supplied booleans", () => {
    const e = env();
    expect(
      errorOf(() => e.call("getAuthenticationDetails", { account_id: "TUV-01234", is_account_id_valid: false }))
        .message,
    ).toBe("Invalid account ID provided");
    const s = e.call("createSessionAndOpenTicket", {
      account_id: "TUV-01234",
      is_account_id_valid: true,
      is_authenticated: true,
    });
    expect(s).toEqual({ "session token": "SES-20250510-TUV01234-001", "ticket identifer": "TKT-2025051294" });
    const base = { account_id: "TUV-01234", session_token: "SES-20250510-TUV01234-001" };
    expect(
      errorOf(() =>
        e.call("executeTroubleshooting", { ...base, root_causes: ["NETWORK_CONGESTION", "LINE_INTERFERENCE"] }),
      ).message,
    ).toMatch(/^Incorrect root causes/);
    const fix = e.call("executeTroubleshooting", { ...base, root_causes: ["LINE_INTERFERENCE", "NETWORK_CONGESTION"] });
    expect(fix).toHaveProperty("updated service metrics.latency");
    const esc = { session_token: base.session_token, ticket_id: "TKT-2025051294" };
    expect(
      errorOf(() =>
        e.call("createEscalation", { ...esc, metrics_improved_post_troubleshooting: true, escalation_required: false }),
      ).message,
    ).toBe("No record found for the given parameters");
    expect(
      e.call("createEscalation", { ...esc, metrics_improved_post_troubleshooting: false, escalation_required: true }),
    ).toMatchObject({
      "escalation team": "TIER2_SUPPORT",
    });
  });
  it("empty cells come back as empty strings where the binding says so", () => {
    const r = env().call("checkAccountStatus", { account_id: "BCD-89012", session_token: "SES-20250510-BCD89012-001" });
    expect(r).toEqual({ "account status": "ACTIVE", reason: "" });
  });
});

describe("know_your_business", () => {
  const env = () => new SopBenchEnv("know_your_business");
  it("screens only the first UBO", () => {
    const ubos = [
      { name: "V Petrov", id: "ID255", ownership: 40 },
      { name: "A Tanaka", id: "ID256", ownership: 60 },
    ];
    expect(env().call("performSanctionsCheck", { business_id: "biz_122", ubo_list: ubos })).toEqual({
      sanction_check_status: [{ name: "V Petrov", status: "Matched" }],
      pep_status: [{ name: "V Petrov", status: "Yes" }],
    });
    expect(
      errorOf(() =>
        env().call("performSanctionsCheck", {
          business_id: "biz_122",
          ubo_list: [{ name: "Nobody", id: "ID1", ownership: 1 }],
        }),
      ).message,
    ).toBe("Name 'Nobody' not found in Sanctions/PEP database.");
  });
  it("matches the bank account as int(), returns raw strings", () => {
    const args = {
      business_id: "biz_122",
      bank_account_number: "45678901",
      banking_institution: "",
      bank_account_type: "Business",
    };
    const row = loadDomain("know_your_business").table.rows.find((r) => r.business_id === "biz_122");
    args.banking_institution = String(row?.banking_institution);
    expect(env().call("verifyBankAccount", args)).toEqual({ bank_verification_status: row?.bank_verification_status });
    expect(env().call("getBankData", { business_id: "biz_122" })).toMatchObject({ bank_account_number: "45678901" });
    expect(String(obj(env().call("getOwnershipData", { business_id: "biz_122" })).ubo_list)).toMatch(
      /^\[\{'name': 'V Petrov'/,
    );
    expect(errorOf(() => env().call("verifyBankAccount", { ...args, bank_account_number: "12ab" })).message).toMatch(
      /invalid literal for int/,
    );
  });
});

const obj = (v: unknown) => v as Record<string, unknown>;

describe("order_fulfillment rules over the constant tables", () => {
  const env = () => new SopBenchEnv("order_fulfillment");
  it("inventory, customer, shipping, decision", () => {
    const e = env();
    expect(e.call("check_inventory", { product_id: "prod003", quantity_requested: 2 })).toMatchObject({
      inventory_status: "low_stock",
      can_fulfill: true,
    });
    expect(e.call("check_inventory", { product_id: "PROD003", quantity_requested: 6 })).toMatchObject({
      inventory_status: "insufficient_stock",
    });
    expect(e.call("check_inventory", { product_id: "PROD004", quantity_requested: 1 })).toMatchObject({
      inventory_status: "out_of_stock",
    });
    expect(e.call("check_inventory", { product_id: "PROD999", quantity_requested: 1 })).toMatchObject({
      inventory_status: "product_not_found",
    });
    // CUST010's table status "review" is ignored, as upstream ignores it.
    expect(e.call("validate_customer", { customer_id: "CUST010", order_total: 299.99 })).toMatchObject({
      customer_status: "approved",
    });
    expect(e.call("validate_customer", { customer_id: "CUST003", order_total: 600 })).toMatchObject({
      customer_status: "review_required",
    });
    expect(e.call("validate_customer", { customer_id: "CUST005", order_total: 1 })).toMatchObject({
      customer_status: "blocked",
    });
    expect(
      e.call("calculate_shipping", { destination_zip: "99501", package_weight: 2, shipping_speed: "express" }),
    ).toEqual({
      shipping_cost: 22.49,
      delivery_days: 5,
      shipping_speed: "express",
      is_remote_area: true,
      success: true,
    });
    // pandas read 02101 as 2101; zfill restores it (not remote).
    expect(
      e.call("calculate_shipping", { destination_zip: "2101", package_weight: 1, shipping_speed: "standard" }),
    ).toMatchObject({
      shipping_cost: 6.49,
      delivery_days: 5,
      is_remote_area: false,
    });
    const decide = (inventory_status: string, customer_status: string, order_priority: string) =>
      obj(e.call("make_fulfillment_decision", { inventory_status, customer_status, shipping_cost: 5, order_priority }))
        .decision;
    expect(decide("in_stock", "blocked", "urgent")).toBe("reject");
    expect(decide("in_stock", "review_required", "normal")).toBe("manual_review");
    expect(decide("insufficient_stock", "approved", "urgent")).toBe("backorder");
    expect(decide("low_stock", "approved", "urgent")).toBe("fulfill_immediately");
    expect(decide("low_stock", "approved", "normal")).toBe("fulfill_delayed");
    expect(decide("in_stock", "unknown", "normal")).toBe("manual_review");
  });
});

describe("patient_intake", () => {
  it("returns one wrapped label per tool; an empty lifestyle value is refused", () => {
    const env = new SopBenchEnv("patient_intake");
    expect(
      env.call("calculateLifestyleRisk", {
        patient_id: "P100066",
        smoking_status: "Never",
        alcohol_consumption: "None",
        exercise_frequency: "5+ times",
      }),
    ).toEqual({
      life_style_risk_level: "low",
    });
    expect(
      errorOf(() =>
        env.call("calculateLifestyleRisk", {
          patient_id: "P100066",
          smoking_status: "Never",
          alcohol_consumption: "",
          exercise_frequency: "5+ times",
        }),
      ).message,
    ).toBe("Missing required parameters");
  });
});

describe("referral v1/v2, traffic", () => {
  it("v1 guideline constant echoes the account id", () => {
    expect(
      new SopBenchEnv("referral_abuse_detection_v1").call("determine_enforcement_action", { account_id: "ACC1" }),
    ).toMatchObject({
      account_id: "ACC1",
      enforcement_guidelines: { "Misleading Ad Copy": "Account Closure", "No Violation": "No Action" },
    });
  });
  it("v2 reuses v1's traffic projection and reads 'None' as null", () => {
    const env = new SopBenchEnv("referral_abuse_detection_v2");
    expect(Object.keys(obj(env.call("analyze_traffic_patterns", { account_id: "ACC100011" })))).toEqual([
      "account_id",
      "revenue_amount",
      "click_through_rate",
      "page_views",
      "device_distribution",
      "referral_source_quality",
      "payment_method_shared",
      "order_patterns_suspicious",
    ]);
    expect(env.call("get_violation_history", { account_id: "ACC100011" })).toEqual({
      account_id: "ACC100011",
      previous_violations_count: 1,
      last_violation_date: "2024-12-30T12:31:45Z",
      warning_issued: expect.any(Boolean),
      account_rehabilitation_status: null,
    });
    expect(errorOf(() => env.call("investigate_account", { account_id: "ACC9" })).message).toBe(
      "Account ACC9 not found",
    );
  });
  it("traffic tools return bare strings and check presence", () => {
    const env = new SopBenchEnv("traffic_spoofing_detection");
    expect(
      env.call("AnalyzeTrafficPatterns", {
        partner_id: "PARTNER100",
        engagement_score: 0,
        conversion_rate: 0,
        bounce_rate: 0,
      }),
    ).toBe("SUSPICIOUS");
    expect(
      env.call("GenerateEvidenceReport", {
        partner_id: "PARTNER100",
        violation_type: "x",
        evidence_collected: ["URLs"],
      }),
    ).toBe("SUCCESS");
    expect(
      errorOf(() =>
        env.call("GenerateEvidenceReport", { partner_id: "NOPE", violation_type: "x", evidence_collected: ["URLs"] }),
      ).code,
    ).toBe("sopbench.tool_error");
    expect(
      errorOf(() =>
        env.call("InvestigateViolations", { partner_id: "PARTNER100", registered_websites: ["a"], earnings_amount: 0 }),
      ).message,
    ).toBe("Missing required parameters");
  });
});

describe("video_annotation", () => {
  it("the 20 stubs return null; lookups chain on exact floats", () => {
    const env = new SopBenchEnv("video_annotation");
    const d = loadDomain("video_annotation");
    const stubs = (d.bindings.tools._stubs as { names: string[] }).names;
    expect(stubs).toHaveLength(20);
    for (const name of stubs) {
      const spec = d.toolSpecs.find((s) => s.name === name);
      const props = Object.entries((spec?.parameters.properties ?? {}) as Record<string, { type: string }>);
      const args = Object.fromEntries(
        props.map(([k, p]) => [
          k,
          k === "video_id" ? "vid_00178" : p.type === "string" ? "x" : p.type === "boolean" ? true : 1,
        ]),
      );
      expect(env.call(name, args)).toBeNull();
    }
    const lidar = obj(
      env.call("validateLidarData", { video_id: "vid_00178", video_path: "/data/videos/vid_00178.mp4" }),
    );
    expect(lidar.object_distance).toBe(141);
    const chain = {
      video_id: "vid_00178",
      predicted_object: "bicyclists",
      predicted_iou: 0.971883360315846,
      segmentation_output_path: "/data/videos/vid_00178.mp4.binary",
      object_detection_output_path: "/data/videos/vid_00178.mp4.json",
    };
    expect(env.call("performHumanValidation", chain)).toMatchObject({ min_reviewers: 2 });
    expect(() => env.call("performHumanValidation", { ...chain, predicted_iou: 0.9719 })).toThrow(ToolCallError);
    const tolerant = new SopBenchEnv("video_annotation", { floatTolerance: 1e-6 });
    expect(tolerant.call("performHumanValidation", { ...chain, predicted_iou: 0.9718834 })).toMatchObject({
      min_reviewers: 2,
    });
    expect(() => tolerant.call("performHumanValidation", { ...chain, predicted_iou: 0.9719 })).toThrow(ToolCallError);
  });
});

describe("warehouse rules", () => {
  it("csv mode reads barcode/damage from the row; original mode uses PO parity", () => {
    const csv = new SopBenchEnv("warehouse_package_inspection");
    const orig = new SopBenchEnv("warehouse_package_inspection", { warehouseMode: "original" });
    const args = { po_number: "PO987654494", confirmed_product_id: "x", received_product_bar_code: "y" };
    expect(csv.call("validateBarcode", args)).toMatchObject({ barcode_match: false, problem_type: ["Wrong Item"] });
    expect(orig.call("validateBarcode", args)).toMatchObject({ barcode_match: true });
    expect(orig.call("assessPackageCondition", { po_number: "PO000000003", package_image_path: "p" })).toMatchObject({
      package_condition: "damaged",
    });
    expect(
      errorOf(() => csv.call("assessPackageCondition", { po_number: "PO1", package_image_path: "p" })).message,
    ).toMatch(/No shipment found/);
  });
  it("variance, chargeback and status transitions", () => {
    const e = new SopBenchEnv("warehouse_package_inspection");
    const qv = (o: number, c: number, r: number, QVT?: number) =>
      e.call("calculateQuantityVariance", {
        po_number: "PO1",
        ordered_quantity: o,
        confirmed_quantity: c,
        received_quantity: r,
        ...(QVT ? { QVT } : {}),
      });
    expect(qv(100, 0, 0)).toEqual({ quantity_variance: 0, problem_type: ["Cancelled Quantity"], chargeable: false });
    expect(qv(100, 100, 90)).toEqual({
      quantity_variance: -10,
      problem_type: ["Underage Quantity", "Severe Unmatched Quantity"],
      chargeable: true,
    });
    expect(qv(100, 100, 90, 20)).toEqual({
      quantity_variance: -10,
      problem_type: ["Underage Quantity"],
      chargeable: true,
    });
    expect(qv(100, 100, 103)).toEqual({ quantity_variance: 3, problem_type: ["Overage Quantity"], chargeable: false });
    expect(errorOf(() => qv(-1, 1, 1)).message).toBe("Quantities cannot be negative");
    expect(
      e.call("calculateChargeback", {
        po_number: "PO1",
        problem_type: ["Wrong Warehouse", "Vendor Damaged"],
        ordered_quantity: 10,
        received_quantity: 10,
        unit_cost: 2,
      }),
    ).toEqual({ chargeable: true, charge_amount: 22 });
    expect(
      errorOf(() =>
        e.call("calculateChargeback", {
          po_number: "PO1",
          problem_type: ["Bogus"],
          ordered_quantity: 1,
          received_quantity: 1,
          unit_cost: 1,
        }),
      ).message,
    ).toMatch(/Invalid problem type/);
    const upd = (problem_type: string[], current_status: string) =>
      e.call("updateResolutionStatus", { po_number: "PO1", problem_type, current_status });
    expect(upd(["Wrong Item"], "Pending")).toEqual({
      resolution_status: "Returned to Vendor",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    expect(upd(["Vendor Damaged"], "Pending")).toMatchObject({ resolution_status: "Processing" });
    expect(upd([], "Pending")).toMatchObject({ resolution_status: "Pending" });
    expect(() => upd(["Vendor Damaged"], "Returned to Vendor")).toThrow(ToolCallError);
  });
  it("problem reports are deterministic under a pinned clock and seed", () => {
    const report = (seed: number) =>
      new SopBenchEnv("warehouse_package_inspection", { seed, now: () => new Date("2025-03-04T05:06:07Z") }).call(
        "generateProblemReport",
        {
          po_number: "PO1",
          vendor_id: "V1",
          vendor_name: "Vendor",
          problem_type: ["Vendor Damaged", "Wrong Warehouse"],
          charge_amount: 12.5,
          resolution_status: "Processing",
        },
      );
    const a = obj(report(7));
    expect(a).toEqual(report(7));
    expect(a.report_id).toMatch(/^RPT-[0-9A-F]{8}$/);
    expect(a.report_id).not.toEqual(obj(report(8)).report_id);
    expect(a.chargeback_details).toEqual({
      chargeable: true,
      charge_amount: 12.5,
      charge_date: "2025-03-04",
      charge_reason: "Vendor Damaged, Wrong Warehouse",
    });
    expect(a.problem_summary).toMatchObject({ total_problems: 2, unique_problems: 2, primary_issue: "Vendor Damaged" });
  });
});
