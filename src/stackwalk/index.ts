// The stack walker's public surface: a pure leaf (memory, images and symbols are handed in).
export type * from './types.js';
export { walkStack, DEFAULT_MAX_FRAMES, DEFAULT_MAX_READS } from './walk.js';
export { moduleIndex } from './module-index.js';
export { parseContext, archFromProcessor, REGISTER_ORDER } from './context.js';
export { PeImage, readPeHeaders } from './pe-image.js';
export type { PeHeaders, PeSection, RuntimeFunction } from './pe-image.js';
export { ExportSymbolProvider, readExports, nearestExport } from './exports.js';
export { nameFrames, frameLabel } from './name-frames.js';
export { evaluatePostfix } from './postfix.js';
export { endsWithCall } from './scan.js';
