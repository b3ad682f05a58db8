/**
 * The entry every Piscina worker of this project loads (workers/signatureVerifier.ts,
 * workers/markComputer.ts): plain CommonJS, so a worker can load it with no loader at all,
 * whatever its execArgv and whenever it starts (at pool start, as a replacement for a worker
 * that died, lazily for a task). It registers tsx's CommonJS hook in this thread itself,
 * synchronously, then requires the `.ts` task named in workerData.taskFile. Nothing here
 * depends on the parent's `--import tsx` or on tsx's ESM hooks (which do not reach worker
 * threads on Node 20). A task that fails to load throws its own error here instead of
 * Piscina's ESM fallback masking it as "Unknown file extension .ts".
 */
'use strict';
const { workerData } = require('node:worker_threads');
const { register } = require('tsx/cjs/api');

const taskFile = workerData && workerData.taskFile;
if (typeof taskFile !== 'string') throw new Error('workers/loadTask.cjs: workerData.taskFile (the .ts task to load) is missing');
register();
const task = require(taskFile);
module.exports = typeof task === 'function' ? task : task.default;
