/**
 * The hosts feature's face: the room's SSH hosts (it owns the hosts table), the login-PATH check, and the
 * shells and graph stages placed on a host through its room node. The engine builds one NodeLinks (a link per
 * host) and over it RemoteShells (the shells feature's RemoteShellPort, and this feature's) and RemoteStages
 * (the graphs' RemoteStagePort).
 */
export { hostsFeature } from './hosts-feature';
export { RemoteShells } from './remote-shells';
export { RemoteStages } from './remote-stages';
export { RemoteAgents } from './remote-agents';
export { NodeLinks } from './node-links';
export { HostWorkspaces } from './host-workspaces';
export { HOST_EVENTS, describeHostEvent } from './host-events';
export type { RemoteAgentOpen, RemoteAgentPort, RoomForward } from './remote-agent-port';
export { encodeOutputFrame } from './stream-frames';
