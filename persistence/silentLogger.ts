/** A Logger that drops everything: the default for in-memory storage in unit tests of other layers. */
import type { Logger } from './types.ts';

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
