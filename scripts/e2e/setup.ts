// Owns what both end-to-end suites share about the extension under test: the factory model and the user settings
// of the fresh profile (small context, one thread, the model above).

import {testModel} from "../../test/helpers/models";

/** Path of the tiny random qwen2 GGUF (ChatML) the sessions run on; built on first use and cached. */
export function e2eModel(): string {
    return process.env.NANO_E2E_MODEL ?? testModel({arch: "qwen2", type: "q8_0"});
}

/**
 * The factory GGUF the UI suite types a task to: qwen2 q8_0 like e2eModel(), with an untied output matrix (`make-model
 * --untied`), whose random logits spread over the vocabulary — the tied default samples almost only "\n", which
 * streams as nothing visible.
 */
export function e2eUiModel(): string {
    return process.env.NANO_E2E_UI_MODEL ?? testModel({arch: "qwen2", type: "q8_0", tiedOutput: false});
}

export function e2eSettings(model: string): Record<string, unknown> {
    return {
        "nanoCoder.model": model,
        "nanoCoder.gpu": "off",
        "nanoCoder.threads": 1,
        "nanoCoder.contextSize": 16384,
    };
}
