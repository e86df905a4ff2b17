import { useEffect } from 'react';
import { useEndpointStore } from './stores/endpoint';

/** Placeholder window: says where agents connect. Terminals, graphs and the inbox come with the app issue. */
export function App(): React.JSX.Element {
  const { info, error, load } = useEndpointStore();
  useEffect(() => void load(), [load]);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 24 }}>
      <h1>Commonroom</h1>
      {info && (
        <dl>
          <dt>Room</dt>
          <dd>{info.room}</dd>
          <dt>MCP endpoint</dt>
          <dd data-testid="mcp-url">{info.mcpUrl}</dd>
          <dt>Operator token file</dt>
          <dd>{info.tokenFile}</dd>
        </dl>
      )}
      {error && <p role="alert">{error}</p>}
      {!info && !error && <p>Starting the room…</p>}
    </main>
  );
}
