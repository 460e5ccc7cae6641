// The one path mapping of the supplier: where a path a dump recorded may be on this machine.
// Symbol files and images are both looked for through it. What that means depends on the host
// (src/platform/: on Windows the path itself, on Linux through Wine's drives).
export { localPaths } from '../../platform/index.js';
