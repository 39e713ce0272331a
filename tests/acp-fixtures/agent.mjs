// A small ACP agent (built with the official SDK's agent()) that Paddock runs as an external
// agent in its tests. It does its own file and network work with node's APIs, as a real
// agent would, so the wall around it is what stops it. Each prompt line is one command:
//   write PATH TEXT       asks permission (an edit), then writes PATH (relative to cwd)
//   read PATH             reads PATH (absolute or relative) and says what it got
//   connect HOST PORT     opens a TCP connection and says whether it got through
//   get HOST PORT [PATH]  sends GET PATH (default /) over plain HTTP, directly, and says
//                         the status line
//   plan                  sends a two-step plan
//   hang                  waits until cancelled
//   recall                says the earlier prompts of this session (kept in $HOME, so a
//                         new process can load the session)
// Anything else is answered "ok". Each result is said as "RESULT <what>: <detail>".
import * as acp from "@agentclientprotocol/sdk";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, resolve } from "node:path";
import { Readable, Writable } from "node:stream";

const sessions = new Map();
let calls = 0;
// What each session was asked, kept in the agent's home like a real agent's history.
const store = `${process.env.HOME}/test-agent-sessions.json`;
const kept = () => (existsSync(store) ? JSON.parse(readFileSync(store, "utf8")) : {});
const keep = (id, prompts) => writeFileSync(store, JSON.stringify({ ...kept(), [id]: prompts }));

const say = (client, sessionId, text) =>
  client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
const update = (client, sessionId, u) =>
  client.notify(acp.methods.client.session.update, { sessionId, update: u });

async function write(client, sid, cwd, path, text) {
  const id = `w${++calls}`;
  const abs = resolve(cwd, path);
  await update(client, sid, {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: `Write ${path}`,
    kind: "edit",
    status: "pending",
    rawInput: { file_path: abs, content: text },
  });
  const answer = await client.request(acp.methods.client.session.requestPermission, {
    sessionId: sid,
    toolCall: { toolCallId: id, title: `Write ${path}`, kind: "edit" },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  });
  if (answer.outcome.outcome !== "selected" || answer.outcome.optionId !== "allow") {
    await update(client, sid, { sessionUpdate: "tool_call_update", toolCallId: id, status: "failed" });
    return `RESULT write refused: ${path}`;
  }
  try {
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text + "\n");
    await update(client, sid, {
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "completed",
      content: [{ type: "diff", path: abs, oldText: null, newText: text }],
    });
    return `RESULT write ok: ${path}`;
  } catch (e) {
    await update(client, sid, {
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: String(e.message) } }],
    });
    return `RESULT write failed: ${path}: ${e.code ?? e.message}`;
  }
}

function read(cwd, path) {
  try {
    return `RESULT read ok: ${path}: ${readFileSync(resolve(cwd, path), "utf8").trim()}`;
  } catch (e) {
    return `RESULT read failed: ${path}: ${e.code ?? e.message}`;
  }
}

function tcp(host, port) {
  return new Promise((done) => {
    const socket = connect({ host, port: Number(port), timeout: 3000 });
    socket.on("connect", () => {
      socket.destroy();
      done(`RESULT connect ok: ${host}:${port}`);
    });
    socket.on("timeout", () => {
      socket.destroy();
      done(`RESULT connect failed: ${host}:${port}: timeout`);
    });
    socket.on("error", (e) => done(`RESULT connect failed: ${host}:${port}: ${e.code ?? e.message}`));
  });
}

function get(host, port, path = "/") {
  return new Promise((done) => {
    const socket = connect({ host, port: Number(port), timeout: 5000 });
    let got = "";
    socket.on("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (d) => {
      got += d.toString("latin1");
    });
    socket.on("timeout", () => {
      socket.destroy();
      done(`RESULT get failed: ${host}:${port}: timeout`);
    });
    socket.on("error", (e) => done(`RESULT get failed: ${host}:${port}: ${e.code ?? e.message}`));
    socket.on("close", () => {
      const line = got.split("\r\n")[0];
      done(line.startsWith("HTTP/") ? `RESULT get ok: ${line}` : `RESULT get failed: ${host}:${port}: closed`);
    });
  });
}

const app = acp
  .agent({ name: "paddock-test-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: true },
    agentInfo: { name: "paddock-test-agent", version: "1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `s${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    sessions.set(sessionId, { cwd: params.cwd, cancelled: false, prompts: [] });
    keep(sessionId, []);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    const prompts = kept()[params.sessionId];
    if (!prompts) throw acp.RequestError.resourceNotFound(params.sessionId);
    sessions.set(params.sessionId, { cwd: params.cwd, cancelled: false, prompts });
    for (const text of prompts) {
      await update(client, params.sessionId, { sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    }
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const sid = params.sessionId;
    const session = sessions.get(sid);
    session.cancelled = false;
    const text = params.prompt.map((b) => b.text ?? "").join("\n");
    const earlier = [...session.prompts];
    session.prompts.push(text);
    keep(sid, session.prompts);
    await update(client, sid, {
      sessionUpdate: "agent_thought_chunk",
      content: { type: "text", text: `HOME is ${process.env.HOME}` },
    });
    for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const [verb, ...rest] = line.split(/\s+/);
      let result = "ok";
      if (verb === "write") result = await write(client, sid, session.cwd, rest[0], rest.slice(1).join(" "));
      else if (verb === "read") result = read(session.cwd, rest[0]);
      else if (verb === "connect") result = await tcp(rest[0], rest[1]);
      else if (verb === "get") result = await get(rest[0], rest[1], rest[2]);
      else if (verb === "recall") result = `RESULT recall: ${earlier.join(" | ")}`;
      else if (verb === "plan") {
        await update(client, sid, {
          sessionUpdate: "plan",
          entries: [
            { content: "Look", priority: "high", status: "completed" },
            { content: "Write", priority: "medium", status: "in_progress" },
          ],
        });
        result = "RESULT plan sent";
      } else if (verb === "hang") {
        await new Promise((res) => {
          const timer = setInterval(() => {
            if (session.cancelled) {
              clearInterval(timer);
              res();
            }
          }, 20);
        });
        return { stopReason: "cancelled" };
      }
      await say(client, sid, result + "\n");
    }
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (s) s.cancelled = true;
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
