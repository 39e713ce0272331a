// Drives an ACP agent with the official TypeScript SDK's client, step by step, and prints
// what happened as JSON lines for the Rust tests to check.
//
//   node drive.mjs STEPS_JSON AGENT [ARGS...]
//
// STEPS_JSON is a list of steps:
//   {"do": "initialize"}
//   {"do": "new", "cwd": DIR}                      creates a session (remembered)
//   {"do": "load", "cwd": DIR, "sessionId": ID}    loads one (remembered); prints the replay
//   {"do": "mode", "modeId": ID}
//   {"do": "list", "cwd": DIR}
//   {"do": "prompt", "text": T, "cancelOn": KIND}  cancels when an update of KIND arrives
//                                                  ("sessionId" names another session)
// and {"permission": OPTION_KIND} as the first element sets how permission requests are
// answered (allow_once, allow_always, reject_once, or "cancelled"); the first option of that
// kind is chosen, or a named "optionId" when given.
// The last line ({"step": "exit"}) has the agent's exit code and every update of the run.
// Every message the agent sends is also appended, raw, to $ACP_TRACE when set.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";

const [stepsJson, cmd, ...args] = process.argv.slice(2);
const steps = JSON.parse(stepsJson);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
let fromAgent = Readable.toWeb(child.stdout);
if (process.env.ACP_TRACE) {
  const [mine, traced] = fromAgent.tee();
  fromAgent = mine;
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of traced) appendFileSync(process.env.ACP_TRACE, decoder.decode(chunk));
  })();
}
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), fromAgent);

let answerWith = { kind: "allow_once" };
let updates = [];
const allUpdates = [];
let permissions = [];
let onUpdate = () => {};

const app = acp
  .client({ name: "paddock-acp-test" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    if (answerWith.kind === "cancelled") return { outcome: { outcome: "cancelled" } };
    const chosen = answerWith.optionId
      ? params.options.find((o) => o.optionId === answerWith.optionId)
      : params.options.find((o) => o.kind === answerWith.kind);
    return chosen
      ? { outcome: { outcome: "selected", optionId: chosen.optionId } }
      : { outcome: { outcome: "cancelled" } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    allUpdates.push(params.update);
    onUpdate(params);
  });

let sessionId = null;
try {
  await app.connectWith(stream, async (agent) => {
    for (const step of steps) {
      if (step.permission) {
        answerWith = { kind: step.permission, optionId: step.optionId };
        continue;
      }
      updates = [];
      permissions = [];
      onUpdate = () => {};
      try {
        let result;
        switch (step.do) {
          case "initialize":
            result = await agent.request(acp.methods.agent.initialize, {
              protocolVersion: acp.PROTOCOL_VERSION,
              clientCapabilities: {},
              clientInfo: { name: "paddock-acp-test", version: "0" },
            });
            break;
          case "new":
            result = await agent.request(acp.methods.agent.session.new, {
              cwd: step.cwd,
              mcpServers: step.mcpServers ?? [],
            });
            sessionId = result.sessionId;
            break;
          case "load":
            result = await agent.request(acp.methods.agent.session.load, {
              sessionId: step.sessionId,
              cwd: step.cwd,
              mcpServers: [],
            });
            sessionId = step.sessionId;
            break;
          case "list":
            result = await agent.request(acp.methods.agent.session.list, { cwd: step.cwd });
            break;
          case "mode":
            result = await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: step.modeId });
            break;
          case "prompt": {
            if (step.cancelOn) {
              let sent = false;
              onUpdate = (params) => {
                if (!sent && params.update.sessionUpdate === step.cancelOn) {
                  sent = true;
                  agent.notify(acp.methods.agent.session.cancel, { sessionId });
                }
              };
            }
            result = await agent.request(acp.methods.agent.session.prompt, {
              sessionId: step.sessionId ?? sessionId,
              prompt: step.blocks ?? [{ type: "text", text: step.text }],
            });
            break;
          }
          default:
            throw new Error(`unknown step ${step.do}`);
        }
        out({ step: step.do, result, updates, permissions });
      } catch (e) {
        out({ step: step.do, error: { code: e.code ?? null, message: String(e.message ?? e) }, updates, permissions });
      }
    }
  });
} finally {
  child.stdin.end();
  const exited = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 10000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    if (child.exitCode !== null) resolve(child.exitCode);
  });
  out({ step: "exit", code: exited, updates: allUpdates });
  if (exited === null) child.kill("SIGKILL");
}
