/**
 * The hosts feature's face: the room's SSH hosts (it owns the hosts table), the login-PATH check, and the
 * shells placed on a host through its room node. The engine builds RemoteShells once and hands it to the
 * shells feature (as its RemoteShellPort) and to this feature.
 */
export { hostsFeature } from './hosts-feature';
export { RemoteShells } from './remote-shells';
export { HOST_EVENTS } from './host-events';
