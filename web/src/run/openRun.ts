import { api } from "../api";
import { errText, useStore } from "../store";

/**
 * Show one run of the open app in the Run panel, as its deep link `/apps/:id/runs/:runId` names it: its events
 * from the first, its trace, and when it is paused the forms it waits on (answerable there).
 */
export async function openRun(runId: string): Promise<void> {
  const s = useStore.getState();
  const app = s.app;
  if (!app) return;
  useStore.setState({
    panel: "run",
    run: { runId, status: "loading", statuses: {}, events: [], trace: [], workflow: s.draft },
  });
  try {
    const r = await api<{ id: string; appId?: string; status: string }>(`/api/runs/${encodeURIComponent(runId)}`);
    if (r.appId !== app.id) throw new Error(`run ${runId} is not a run of ${app.name}`);
    await useStore.getState().followRun(runId);
  } catch (e) {
    useStore.setState((st) => ({
      run: {
        ...st.run,
        status: "failed",
        error: { code: "run.open_failed", message: `could not open run ${runId}: ${errText(e)}` },
      },
    }));
  }
}
