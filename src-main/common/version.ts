/** The runner's version, reported by room_info and `commonroom --version`. Kept equal to package.json. */
export const RUNNER_VERSION = '0.1.0';
