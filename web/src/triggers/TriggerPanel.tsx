import { useCallback, useEffect, useState } from "react";
import { api } from "../api";
import { ErrorBox } from "../components/ErrorBox";
import { StudioLink } from "../components/StudioLink";
import { routePath } from "../route";
import { errText, useStore } from "../store";

/** One trigger as `GET /api/triggers?app=…&deliveries=N` lists it (src/triggers/listing.ts). */
interface TriggerInfo {
  id: string;
  type: "webhook" | "schedule" | "plugin";
  nodeId: string;
  enabled: boolean;
  url?: string;
  nextFire?: string;
  cron?: string;
  timezone?: string;
  error?: { code: string; message: string };
  deliveries?: Array<{ id: string; status: number; receivedAt: string; runId: string; state: string; error?: string }>;
}

const DELIVERIES = 5;

/**
 * The published trigger of the selected node: webhook URL (copy), enabled toggle, next fire time, the latest
 * deliveries with links to their runs. Triggers exist once the app is published, so a draft-only node says so.
 */
export function TriggerPanel({ nodeId }: { nodeId: string }) {
  const app = useStore((s) => s.app);
  const [trigger, setTrigger] = useState<TriggerInfo | null | undefined>(undefined);
  const [error, setError] = useState("");
  const [copied, setCopied] = useState(false);
  const load = useCallback(async () => {
    if (!app) return;
    try {
      const r = await api<{ triggers: TriggerInfo[] }>(
        `/api/triggers?app=${encodeURIComponent(app.id)}&deliveries=${DELIVERIES}`,
      );
      setTrigger(r.triggers.find((t) => t.nodeId === nodeId) ?? null);
      setError("");
    } catch (e) {
      setError(errText(e));
    }
  }, [app, nodeId]);
  useEffect(() => {
    void load();
  }, [load]);
  if (!app) return null;
  if (error) return <ErrorBox error={error} testId="trigger-error" />;
  if (trigger === undefined) return <p className="muted small">Loading the trigger…</p>;
  if (trigger === null)
    return (
      <p className="muted small" data-testid="trigger-unpublished">
        Not live yet: publish the app to get its trigger (webhook URL, next fire time).
      </p>
    );
  const toggle = async () => {
    // Shown at once; the server's answer (or the reload after a failure) has the last word.
    const enabled = !trigger.enabled;
    setTrigger({ ...trigger, enabled });
    try {
      await api(`/api/triggers/${trigger.id}/${enabled ? "enable" : "disable"}`, { method: "POST" });
    } catch (e) {
      setError(errText(e));
    }
    await load();
  };
  const copy = async () => {
    await navigator.clipboard.writeText(trigger.url ?? "");
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <div className="trigger-panel" data-testid="trigger-panel" data-trigger-id={trigger.id}>
      <label className="small">
        <input type="checkbox" checked={trigger.enabled} onChange={() => void toggle()} data-testid="trigger-enabled" />{" "}
        enabled
      </label>
      {trigger.url && (
        <div className="trigger-url">
          <code data-testid="trigger-url">{trigger.url}</code>{" "}
          <button type="button" onClick={() => void copy()} data-testid="trigger-copy">
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
      )}
      {trigger.type === "schedule" && (
        <p className="small" data-testid="trigger-next">
          {trigger.error
            ? `Does not run: ${trigger.error.message}`
            : trigger.nextFire
              ? `Next: ${new Date(trigger.nextFire).toLocaleString()} (${trigger.cron}, ${trigger.timezone})`
              : "Disabled: no next fire time"}
        </p>
      )}
      <h6>Last deliveries</h6>
      {(trigger.deliveries ?? []).length === 0 && <p className="muted small">None yet.</p>}
      <ul className="trigger-deliveries">
        {(trigger.deliveries ?? []).map((d) => {
          const path = routePath({ appId: app.id, runId: d.runId });
          return (
            <li key={d.id} data-testid="trigger-delivery" data-state={d.state}>
              <span className={`pill st-${d.state}`}>{d.status || d.state}</span>{" "}
              {new Date(d.receivedAt).toLocaleString()}{" "}
              <StudioLink path={path} data-testid="trigger-run-link">
                run
              </StudioLink>
              {d.error && <span className="muted small"> {d.error}</span>}
            </li>
          );
        })}
      </ul>
      <button type="button" className="small" onClick={() => void load()} data-testid="trigger-refresh">
        Refresh
      </button>
    </div>
  );
}
