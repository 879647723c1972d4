// Owns the list of CLI commands (later issues add theirs here).

import type {CliCommand} from "./command";

export const commands: CliCommand[] = [];
