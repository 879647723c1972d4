// Owns file fingerprints for traces: the sha256 of a model or adapter file, computed by streaming and cached per
// (path, size, mtime) for the life of the process.

import {createHash} from "node:crypto";
import {createReadStream} from "node:fs";
import {stat} from "node:fs/promises";

const cache = new Map<string, Promise<string>>();

/** Hex sha256 of the file's bytes. */
export async function sha256File(path: string): Promise<string> {
    const st = await stat(path);
    const key = `${path}\0${st.size}\0${st.mtimeMs}`;
    let p = cache.get(key);
    if (!p) {
        p = new Promise<string>((resolve, reject) => {
            const h = createHash("sha256");
            createReadStream(path).on("data", d => h.update(d)).on("error", reject).on("end", () => resolve(h.digest("hex")));
        });
        cache.set(key, p);
        p.catch(() => cache.delete(key));
    }
    return p;
}
