// Owns the list of CLI commands (later issues add theirs here).

import type {CliCommand} from "./command";
import {inspectCommand} from "./inspect";
import {makeModelCommand} from "./make-model";
import {parityCommand} from "./parity";
import {runCommand} from "./run";
import {sandboxCommand} from "./sandbox";
import {tracesCommand} from "./traces";

export const commands: CliCommand[] = [makeModelCommand, inspectCommand, parityCommand, sandboxCommand, runCommand, tracesCommand];
