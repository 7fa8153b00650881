import { describe, expect, it } from "vitest";
import { domains, loadDomain, parsePyLiteral, pyStr, readTable, SopBenchError } from "../../src/eval/sopbench/index.js";

describe("pandas-compatible CSV typing", () => {
  it("infers bool/int/float/str per column and reads pandas NA strings as null", () => {
    const t = readTable('a,b,c,d,e\nTrue,1,1.5,x,1\nFalse,2,,None,\nTRUE,3,2,"q,r",3\n');
    expect(t.dtypes).toEqual({ a: "bool", b: "int", c: "float", d: "str", e: "float" });
    expect(t.rows[1]).toEqual({ a: false, b: 2, c: null, d: null, e: null });
    expect(t.rows[2]?.d).toBe("q,r");
    expect(pyStr(5, "float")).toBe("5.0");
    expect(pyStr(1234567, "int")).toBe("1234567");
    expect(pyStr(1e-7)).toBe("1e-07");
  });

  it("parses the Python literals the corpus stores", () => {
    expect(parsePyLiteral("[{'name': 'S Wilson', 'id': 'ID204', 'ownership': 100.0}]")).toEqual([
      { name: "S Wilson", id: "ID204", ownership: 100 },
    ]);
    expect(parsePyLiteral("[true,true,False, None]")).toEqual([true, true, false, null]);
    expect(parsePyLiteral(`['it\\'s', "x"]`)).toEqual(["it's", "x"]);
    expect(() => parsePyLiteral("[1, 2")).toThrow(SopBenchError);
  });
});

describe("domain loader", () => {
  it("lists the ten ARTIC domains by folder name", () => {
    expect(domains()).toEqual([
      "customer_service",
      "dangerous_goods",
      "know_your_business",
      "order_fulfillment",
      "patient_intake",
      "referral_abuse_detection_v1",
      "referral_abuse_detection_v2",
      "traffic_spoofing_detection",
      "video_annotation",
      "warehouse_package_inspection",
    ]);
  });

  it("row counts match the MANIFEST and task ids are unique", () => {
    const sizes = Object.fromEntries(domains().map((d) => [d, loadDomain(d).tasks.length]));
    expect(sizes).toEqual({
      customer_service: 156,
      dangerous_goods: 274,
      know_your_business: 90,
      order_fulfillment: 30,
      patient_intake: 66,
      referral_abuse_detection_v1: 200,
      referral_abuse_detection_v2: 200,
      traffic_spoofing_detection: 200,
      video_annotation: 125,
      warehouse_package_inspection: 150,
    });
    for (const d of domains()) {
      const ids = loadDomain(d).tasks.map((t) => t.taskId);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it("types columns the way the tools compare them", () => {
    const cs = loadDomain("customer_service").table;
    expect(cs.dtypes.is_account_id_valid).toBe("bool");
    expect(cs.dtypes.outage_impact_score).toBe("float");
    const dg = loadDomain("dangerous_goods").table;
    // One empty cell turns the int column into float, as in pandas.
    expect(dg.dtypes.sds_label_score).toBe("float");
    expect(dg.dtypes.handling_score).toBe("int");
    expect(loadDomain("know_your_business").table.dtypes.bank_account_number).toBe("int");
    expect(loadDomain("order_fulfillment").table.dtypes.destination_zip).toBe("int");
    const v2 = loadDomain("referral_abuse_detection_v2").table;
    expect(v2.rows[0]?.account_rehabilitation_status).toBeNull();
    expect(v2.rows[0]?.last_violation_date).toBeNull();
    expect(loadDomain("video_annotation").table.rows[0]?.["final status"]).toBe(true);
  });

  it("gives solvers the input columns and keeps labels out of them", () => {
    const of = loadDomain("order_fulfillment");
    expect(of.inputColumns).not.toContain("expected_output");
    expect(of.tasks[0]?.inputs).toEqual({
      order_id: "ORD001",
      product_id: "PROD001",
      quantity_requested: 2,
      customer_id: "CUST001",
      order_total: 159.98,
      destination_zip: 98101,
      package_weight: 1.5,
      shipping_speed: "standard",
      order_priority: "normal",
    });
    expect(of.tasks[0]?.expected).toEqual({ expected_output: "fulfill_immediately" });
    const wh = loadDomain("warehouse_package_inspection");
    for (const hidden of [
      "resolution_status",
      "barcode_match",
      "package_condition",
      "problem_type",
      "charge_back_amt",
      "chargeable",
    ])
      expect(wh.inputColumns).not.toContain(hidden);
    const pi = loadDomain("patient_intake");
    expect(pi.outputColumns).toHaveLength(6);
    for (const d of domains()) {
      const dom = loadDomain(d);
      for (const c of dom.outputColumns) expect(dom.inputColumns).not.toContain(c);
    }
  });

  it("loads the SOP text, JSON-schema tool specs and constant tables", () => {
    const d = loadDomain("dangerous_goods");
    expect(d.sop).toContain("hazard_score");
    expect(d.toolSpecs.map((s) => s.name).sort()).toEqual([
      "calculate_disposal_score",
      "calculate_handling_score",
      "calculate_sds_label_score",
      "calculate_transportation_score",
    ]);
    expect(d.toolSpecs[0]?.parameters).toMatchObject({ type: "object", required: expect.any(Array) });
    expect(loadDomain("order_fulfillment").constants).toHaveProperty("inventory.PROD001.stock", 150);
  });

  it("unknown domains and a missing corpus are typed errors", () => {
    expect(() => loadDomain("aircraft_inspection")).toThrow(
      expect.objectContaining({ code: "sopbench.unknown_domain" }),
    );
    expect(() => domains("/nonexistent/corpus")).toThrow(expect.objectContaining({ code: "sopbench.data" }));
  });
});
