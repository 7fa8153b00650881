import { type EnvOptions, parsePyLiteral, type TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

/** History cells are Python-literal lists ("['None']"); the schema asks for arrays. */
const list = (v: unknown) => (typeof v === "string" ? parsePyLiteral(v) : v);

/** Empty lifestyle cells are passed as "None" (the schema's own enum value), so the tools accept them. */
const orNone = (v: unknown) => (v === null || v === undefined || v === "" ? "None" : v);

export async function patientIntake(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const i = task.inputs;
  const pid = i.patient_id;
  const one = async (tool: string, params: Record<string, unknown>, key: string) =>
    obj(await t.call(tool, { patient_id: pid, ...params }))[key] as string;
  const insurance_validation = await one(
    "validateInsurance",
    {
      insurance_provider: i.insurance_provider,
      policy_number: i.policy_number,
      group_number: i.group_number,
      coverage_start_date: i.coverage_start_date,
      insurance_type: i.insurance_type,
    },
    "insurance_validation",
  );
  const prescription_insurance_validation = await one(
    "validatePrescriptionBenefits",
    { insurance_provider: i.insurance_provider, policy_number: i.policy_number },
    "prescription_insurance_validation",
  );
  const pharmacy_check = await one(
    "verifyPharmacy",
    {
      preferred_pharmacy_name: i.preferred_pharmacy_name,
      preferred_pharmacy_address: i.preferred_pharmacy_address,
      pharmacy_phone: i.pharmacy_phone,
    },
    "pharmacy_check",
  );
  const life_style_risk_level = await one(
    "calculateLifestyleRisk",
    {
      smoking_status: orNone(i.smoking_status),
      alcohol_consumption: orNone(i.alcohol_consumption),
      exercise_frequency: orNone(i.exercise_frequency),
    },
    "life_style_risk_level",
  );
  const overall_risk_level = await one(
    "calculateOverallRisk",
    {
      previous_surgeries: list(i.previous_surgeries),
      chronic_conditions: list(i.chronic_conditions),
      life_style_risk_level,
    },
    "overall_risk_level",
  );
  const user_registration = await one(
    "registerPatient",
    {
      insurance_validation,
      prescription_insurance_validation,
      life_style_risk_level,
      overall_risk_level,
      pharmacy_check,
    },
    "user_registration",
  );
  return {
    insurance_validation,
    prescription_insurance_validation,
    pharmacy_check,
    life_style_risk_level,
    overall_risk_level,
    user_registration,
  };
}
