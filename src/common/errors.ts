// Owns the project's error type: an Error with a stable machine-readable code and a person-readable message.

export class NanoError extends Error {
    constructor(readonly code: string, message: string, options?: {cause?: unknown}) {
        super(message, options);
        this.name = "NanoError";
    }
}

export function errorMessage(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}
