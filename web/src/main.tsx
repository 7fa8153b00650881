import "@xyflow/react/dist/style.css";
import "./styles.css";
import { useEffect } from "react";
import { createRoot } from "react-dom/client";
import { AppList } from "./components/AppList";
import { Editor } from "./components/Editor";
import { Login } from "./components/Login";
import { useStore } from "./store";

function App() {
  const key = useStore((s) => s.key);
  const app = useStore((s) => s.app);
  const loaded = useStore((s) => s.nodeTypes.length > 0);
  useEffect(() => {
    if (key && !loaded) void useStore.getState().login(key);
  }, [key, loaded]);
  if (!key) return <Login />;
  return app ? <Editor /> : <AppList />;
}

createRoot(document.getElementById("root")!).render(<App />);
