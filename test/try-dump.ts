import { realDump } from './helpers/dump-factory.js';
console.log(await realDump('inline-call'));
console.log(await realDump('inline-top'));
