import { useEffect, useState } from "react";
import { errText, useStore } from "../store";
import { CountInput } from "./CountInput";
import { getSettings, putSettings } from "./testsApi";
import type { TestSettings } from "./types";

/** The publish gate: Publish runs the cases first and is refused unless pass^k reaches the threshold. */
export function GateSettings({ appId }: { appId: string }) {
  const canPublish = useStore((s) => s.can("app.publish"));
  const [s, setS] = useState<TestSettings>();
  const [k, setK] = useState("1");
  const [min, setMin] = useState("1");
  const [msg, setMsg] = useState<{ kind: "ok" | "error"; text: string }>();

  useEffect(() => {
    getSettings(appId).then(
      (r) => {
        setS(r);
        setK(String(r.k));
        setMin(String(r.minPassHatK));
      },
      (e) => setMsg({ kind: "error", text: errText(e) }),
    );
  }, [appId]);
  if (!s) return msg ? <div className="diag error boxed">{msg.text}</div> : null;

  // The box shows the user's choice at once (a checkbox that waits for the server reads as ignored); a refusal puts
  // back what the server holds and says why.
  const save = async (next: TestSettings) => {
    const before = s;
    setS(next);
    setMsg(undefined);
    try {
      const r = await putSettings(appId, next);
      setS(r);
      setMsg({
        kind: "ok",
        text: r.requirePass ? `Publish now needs pass^${r.k} ≥ ${r.minPassHatK}.` : "Publish no longer runs the tests.",
      });
    } catch (e) {
      setS(before);
      setMsg({ kind: "error", text: errText(e) });
    }
  };
  const numbers = (): TestSettings | undefined => {
    const kn = Number(k);
    const mn = Number(min);
    if (!Number.isInteger(kn) || kn < 1)
      return void setMsg({ kind: "error", text: `k must be a whole number ≥ 1, not ${JSON.stringify(k)}` });
    if (min.trim() === "" || !(mn >= 0 && mn <= 1))
      return void setMsg({ kind: "error", text: `the pass^k threshold is from 0 to 1, not ${JSON.stringify(min)}` });
    return { requirePass: s.requirePass, k: kn, minPassHatK: mn };
  };
  return (
    <fieldset
      className="gate-settings"
      data-testid="gate-settings"
      data-required={String(s.requirePass)}
      disabled={!canPublish}
    >
      <legend>Publish gate</legend>
      <label className="field inline">
        <input
          type="checkbox"
          checked={s.requirePass}
          data-testid="gate-require"
          onChange={(e) => {
            const n = numbers();
            if (n) void save({ ...n, requirePass: e.target.checked });
          }}
        />
        Require the tests to pass before publishing
      </label>
      <span className="small">
        runs per case (k) <CountInput value={k} onChange={setK} testId="gate-k" label="k" /> · needs pass^k ≥{" "}
        <CountInput value={min} onChange={setMin} testId="gate-min" label="pass^k threshold" />{" "}
        <button
          type="button"
          data-testid="gate-save"
          onClick={() => {
            const n = numbers();
            if (n) void save(n);
          }}
        >
          Save
        </button>
      </span>
      {msg && (
        <p className={`small ${msg.kind === "ok" ? "ok-text" : "err-text"}`} data-testid="gate-message">
          {msg.text}
        </p>
      )}
    </fieldset>
  );
}
