import { input, inputs, result, type Selector, WorkflowBuilder } from "../dsl.js";
import { PY_LITERAL_JS } from "../snippets.js";

const field = (node: string, key: string): Selector => [...result(node), key];

/**
 * Patient intake: four independent validations (insurance, prescription benefits, pharmacy, lifestyle risk)
 * run in parallel; overall risk needs the lifestyle level; registration needs all five results. The six
 * outputs are the tools' own verdicts.
 */
export function patientIntake() {
  const b = new WorkflowBuilder(
    "patient_intake",
    "SOP-Bench patient intake: validate insurance, benefits and pharmacy, compute lifestyle and overall risk, register.",
  );
  b.start(
    inputs([
      "patient_id",
      "insurance_provider",
      "policy_number",
      "group_number",
      "coverage_start_date",
      "insurance_type",
      "preferred_pharmacy_name",
      "preferred_pharmacy_address",
      "pharmacy_phone",
      "smoking_status",
      "alcohol_consumption",
      "exercise_frequency",
      "previous_surgeries",
      "chronic_conditions",
    ]),
  );
  b.code(
    "prepare",
    "Prepare history and lifestyle values",
    {
      previous_surgeries: input("previous_surgeries"),
      chronic_conditions: input("chronic_conditions"),
      smoking_status: input("smoking_status"),
      alcohol_consumption: input("alcohol_consumption"),
      exercise_frequency: input("exercise_frequency"),
    },
    `${PY_LITERAL_JS}
// History cells are Python-literal lists ("['None']"); the tools want arrays. Empty lifestyle cells become
// "None", the schemas' own value for "none reported".
const list = (v) => (typeof v === "string" ? parsePy(v) : v == null ? [] : v);
const orNone = (v) => (v == null || v === "" ? "None" : v);

function main(i) {
  return {
    previous_surgeries: list(i.previous_surgeries),
    chronic_conditions: list(i.chronic_conditions),
    smoking_status: orNone(i.smoking_status),
    alcohol_consumption: orNone(i.alcohol_consumption),
    exercise_frequency: orNone(i.exercise_frequency),
  };
}`,
    {
      previous_surgeries: "array[string]",
      chronic_conditions: "array[string]",
      smoking_status: "string",
      alcohol_consumption: "string",
      exercise_frequency: "string",
    },
  );
  const patient_id = input("patient_id");
  b.tool("insurance", "validateInsurance", {
    patient_id,
    insurance_provider: input("insurance_provider"),
    policy_number: input("policy_number"),
    group_number: input("group_number"),
    coverage_start_date: input("coverage_start_date"),
    insurance_type: input("insurance_type"),
  });
  b.tool("benefits", "validatePrescriptionBenefits", {
    patient_id,
    insurance_provider: input("insurance_provider"),
    policy_number: input("policy_number"),
  });
  b.tool("pharmacy", "verifyPharmacy", {
    patient_id,
    preferred_pharmacy_name: input("preferred_pharmacy_name"),
    preferred_pharmacy_address: input("preferred_pharmacy_address"),
    pharmacy_phone: input("pharmacy_phone"),
  });
  b.tool("lifestyle", "calculateLifestyleRisk", {
    patient_id,
    smoking_status: ["prepare", "smoking_status"],
    alcohol_consumption: ["prepare", "alcohol_consumption"],
    exercise_frequency: ["prepare", "exercise_frequency"],
  });
  b.tool("overall", "calculateOverallRisk", {
    patient_id,
    previous_surgeries: ["prepare", "previous_surgeries"],
    chronic_conditions: ["prepare", "chronic_conditions"],
    life_style_risk_level: field("lifestyle", "life_style_risk_level"),
  });
  b.tool("register", "registerPatient", {
    patient_id,
    insurance_validation: field("insurance", "insurance_validation"),
    prescription_insurance_validation: field("benefits", "prescription_insurance_validation"),
    life_style_risk_level: field("lifestyle", "life_style_risk_level"),
    overall_risk_level: field("overall", "overall_risk_level"),
    pharmacy_check: field("pharmacy", "pharmacy_check"),
  });
  b.end("end", {
    insurance_validation: field("insurance", "insurance_validation"),
    prescription_insurance_validation: field("benefits", "prescription_insurance_validation"),
    pharmacy_check: field("pharmacy", "pharmacy_check"),
    life_style_risk_level: field("lifestyle", "life_style_risk_level"),
    overall_risk_level: field("overall", "overall_risk_level"),
    user_registration: field("register", "user_registration"),
  });
  b.edge("start", "prepare");
  for (const t of ["insurance", "benefits", "pharmacy"]) b.edge("start", t).edge(t, "register");
  b.chain("prepare", "lifestyle", "overall", "register", "end");
  return b.build();
}
