// The clinicians' chat page. Plain JavaScript, no dependencies of its own (render.js draws a
// reply's blocks; auth.js signs in when the stack has an issuer). The session id is only ever the
// server's; one conversation's reply never lands in another (a generation number and an abort).
"use strict";

// What a clinician reads for each refusal; `wait` is the server's Retry-After, when it sends one.
const ERROR_MESSAGES = {
  401: () => "Bạn chưa đăng nhập, hoặc phiên đăng nhập đã hết hạn. Hãy đăng nhập rồi gửi lại.",
  422: () => "Câu hỏi chưa hợp lệ (trống hoặc dài quá 2000 ký tự). Hãy sửa câu hỏi rồi gửi lại.",
  429: (wait) => `Hệ thống đang nhận quá nhiều câu hỏi. Hãy đợi ${wait || "một lát"} rồi gửi lại.`,
  503: (wait) => `Hệ thống tạm thời không truy cập được dữ liệu Dược thư. Hãy gửi lại sau ${wait || "ít phút"}.`,
};
const NETWORK_MESSAGE = "Không kết nối được máy chủ. Hãy kiểm tra kết nối mạng rồi gửi lại.";
const KEPT = " Câu hỏi của bạn vẫn còn trong ô nhập.";
const STORED = "duocthu.conversation"; // sessionStorage: this tab's conversation, until a new one

const KIND_LABELS = {
  answer: "Trả lời từ Dược thư",
  clarify: "Cần làm rõ câu hỏi",
  smalltalk: "Trợ lý",
  abstain: "Không có thông tin",
  unavailable: "Chưa tra cứu được, hãy thử lại",
};

// `generation` counts conversations: a reply carries the generation it was asked in, and one
// from an earlier conversation is dropped (its request is aborted too).
const state = { sessionId: null, turns: [], generation: 0, controller: null, failed: null, rendered: 0 };
const $ = (id) => document.getElementById(id);

class SignInNeeded extends Error {}

// A POST to the API, with the clinician's token when the stack signs them in (auth.js).
async function api(path, body, signal) {
  const auth = await window.duocthuAuth; // null or undefined: a public stack
  const headers = { "Content-Type": "application/json" };
  if (auth) {
    const token = await auth.token();
    if (!token) throw new SignInNeeded();
    headers.Authorization = `Bearer ${token}`;
  }
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body), signal });
  if (response.status === 401 && auth) await auth.expired();
  return response;
}

function kindOf(reply) {
  if (reply.decision !== "ABSTAIN") return "answer";
  if (reply.reason === "needs_clarification") return "clarify";
  if (reply.reason === "smalltalk") return "smalltalk";
  // A dependency down is not the formulary lacking the answer: it says it could not look.
  if (reply.reason === "dependency_unavailable") return "unavailable";
  return "abstain";
}

function quickReplies(replies) {
  const box = el("div", "quick-replies");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Gợi ý trả lời");
  for (const text of replies) {
    const button = el("button", "quick-reply", text);
    button.type = "button";
    button.disabled = Boolean(state.controller);
    button.addEventListener("click", () => send(text));
    box.append(button);
  }
  return box;
}

// "Báo lỗi": the turn id and an optional note, to POST /v1/feedback.
function feedbackForm(reply, actions) {
  const form = el("form", "feedback");
  const id = `note-${reply.turn_id || state.rendered}`;
  const label = el("label", null, "Điều gì chưa đúng? (không bắt buộc)");
  label.htmlFor = id;
  const note = el("textarea");
  note.id = id;
  note.rows = 2;
  note.maxLength = 1000;
  const submit = el("button", null, "Gửi báo lỗi");
  submit.type = "submit";
  const status = el("p", "feedback-status");
  status.setAttribute("role", "status");
  form.append(label, note, submit, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const body = { session_id: reply.session_id, turn_id: reply.turn_id, note: note.value.trim() || null };
      const response = await api("v1/feedback", body);
      if (!response.ok) throw new Error(String(response.status));
      status.textContent = "Đã gửi báo lỗi. Cảm ơn bạn.";
      note.disabled = true;
    } catch (err) {
      status.textContent = "Chưa gửi được báo lỗi. Hãy thử lại.";
      submit.disabled = false;
    }
  });
  actions.after(form);
  note.focus();
}

function turnActions(question, reply, cited) {
  const actions = el("div", "actions");
  const copy = el("button", "copy", "Sao chép");
  copy.type = "button";
  const copied = el("span", "copied");
  copied.setAttribute("role", "status");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(copyText(question, reply, cited));
      copied.textContent = "Đã sao chép";
    } catch (err) {
      copied.textContent = "Trình duyệt không cho sao chép";
    }
  });
  const report = el("button", "report", "Báo lỗi");
  report.type = "button";
  report.setAttribute("aria-expanded", "false");
  report.addEventListener("click", () => {
    if (report.getAttribute("aria-expanded") === "true") return;
    report.setAttribute("aria-expanded", "true");
    feedbackForm(reply, actions);
  });
  actions.append(copy, report, copied);
  return actions;
}

function renderReply(question, reply) {
  const kind = kindOf(reply);
  state.rendered += 1;
  const item = el("li", `turn reply ${kind === "unavailable" ? "abstain unavailable" : kind}`);
  item.dataset.decision = reply.decision;
  item.dataset.reason = reply.reason;
  item.append(el("p", "kind", KIND_LABELS[kind]));
  let cited = [];
  if (kind === "answer") {
    const drawn = renderBlocks(reply, `t${state.rendered}`);
    item.append(...drawn.parts);
    cited = drawn.cited;
  } else {
    for (const line of reply.answer.split("\n")) if (line.trim()) item.append(el("p", "text", line));
  }
  if (reply.quick_replies.length) item.append(quickReplies(reply.quick_replies));
  item.append(turnActions(question, reply, cited));
  return { item, summary: summaryOf(kind, reply, cited) };
}

// What the live region says: the kind of reply and its first line, never the whole answer.
function summaryOf(kind, reply, cited) {
  const first = (reply.answer.split("\n").find((line) => line.trim()) || "").slice(0, 160);
  const sources = cited.length ? ` ${cited.length} trích dẫn.` : "";
  return `${KIND_LABELS[kind]}. ${first}${sources}`;
}

function announce(text) {
  $("announce").textContent = text;
}

function setBusy(busy) {
  $("busy").hidden = !busy;
  $("send").disabled = busy;
  $("conversation").setAttribute("aria-busy", String(busy));
  for (const button of document.querySelectorAll(".quick-reply")) button.disabled = busy;
}

function showError(message) {
  $("error-text").textContent = message;
  $("error").hidden = !message;
}

function errorMessage(status, retryAfter) {
  const wait = /^\d+$/.test(retryAfter || "") ? `${retryAfter} giây` : "";
  const says = ERROR_MESSAGES[status];
  return (says ? says(wait) : `Đã có lỗi phía máy chủ (mã ${status}). Hãy thử gửi lại.`) + KEPT;
}

function remember() {
  try {
    sessionStorage.setItem(STORED, JSON.stringify({ sessionId: state.sessionId, turns: state.turns }));
  } catch (err) {
    // full or refused storage: the conversation still works, it just does not survive a reload
  }
}

function questionItem(text) {
  return el("li", "turn question", text);
}

function addTurn(question, reply) {
  const { item, summary } = renderReply(question, reply);
  $("conversation").append(item);
  $("sample-notice").classList.add("pill"); // the notice shrinks to one line after an answer
  return summary;
}

// The failed question goes back into the box unless something else was typed meanwhile.
function failed(text, message) {
  const box = $("message");
  if (!box.value.trim()) box.value = text;
  grow();
  state.failed = text;
  showError(message);
  announce(message);
}

// Sends one turn. The box is emptied at once, so what is typed while waiting is kept.
async function send(text) {
  if (state.controller || !text.trim()) return;
  showError("");
  const generation = state.generation;
  const controller = new AbortController();
  state.controller = controller;
  const box = $("message");
  if (box.value === text) {
    box.value = "";
    grow();
  }
  const question = questionItem(text);
  $("conversation").append(question);
  question.scrollIntoView({ block: "start" });
  setBusy(true);
  announce("Đang tra cứu…");
  const body = { message: text };
  if (state.sessionId) body.session_id = state.sessionId;
  let reply = null;
  let problem = null;
  try {
    const response = await api("v1/chat", body, controller.signal);
    if (response.ok) reply = await response.json();
    else problem = errorMessage(response.status, response.headers.get("Retry-After"));
  } catch (err) {
    problem = (err instanceof SignInNeeded ? ERROR_MESSAGES[401]() : NETWORK_MESSAGE) + KEPT;
  }
  if (generation !== state.generation) return; // a new conversation began meanwhile: not ours
  state.controller = null;
  setBusy(false);
  if (!reply) {
    question.remove();
    failed(text, problem);
    return;
  }
  state.sessionId = reply.session_id;
  state.turns.push({ question: text, reply });
  remember();
  announce(addTurn(text, reply));
  if (question.isConnected) question.scrollIntoView({ block: "start" });
  if (document.activeElement === document.body || document.activeElement === $("send")) box.focus();
  updateJump();
}

function newConversation() {
  state.generation += 1;
  if (state.controller) state.controller.abort();
  state.controller = null;
  state.sessionId = null;
  state.turns = [];
  state.failed = null;
  try {
    sessionStorage.removeItem(STORED);
  } catch (err) {
    // nothing stored
  }
  setBusy(false);
  $("conversation").replaceChildren();
  $("sample-notice").classList.remove("pill");
  showError("");
  announce("Đã bắt đầu cuộc trò chuyện mới.");
  $("message").focus();
  updateJump();
}

function restore() {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(STORED) || "null");
  } catch (err) {
    saved = null;
  }
  if (!saved || !Array.isArray(saved.turns)) return;
  state.sessionId = saved.sessionId || null;
  state.turns = saved.turns;
  for (const turn of saved.turns) {
    $("conversation").append(questionItem(turn.question));
    addTurn(turn.question, turn.reply);
  }
}

// The sticky bar's height, so a question scrolled to the top is not under it.
function fitScrollPadding() {
  document.documentElement.style.scrollPaddingTop = `${$("top").offsetHeight + 8}px`;
}

// One row to start; it grows with what is typed, up to a few lines.
function grow() {
  const box = $("message");
  box.style.height = "auto";
  if (box.value) box.style.height = `${Math.min(box.scrollHeight + 2, 160)}px`; // not the placeholder's
}

// "Xuống mới nhất" shows while the newest turn is below the part of the screen left by the composer.
function updateJump() {
  const last = $("conversation").lastElementChild;
  const limit = $("composer").getBoundingClientRect().top;
  $("jump").hidden = !last || last.getBoundingClientRect().bottom <= limit + 1;
}

function jumpToNewest() {
  const turns = $("conversation").children;
  const newest = turns[turns.length - 1];
  if (!newest) return;
  newest.scrollIntoView({ block: "end" });
  updateJump();
}

async function showSampleNotice() {
  // The notice shows from the first paint and goes only when /health says the index is not sample
  // data: a slow or failing /health never hides it.
  try {
    const health = await (await fetch("health")).json();
    $("sample-notice").hidden = health.sample_data === false;
  } catch (err) {
    $("sample-notice").hidden = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const box = $("message");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send(box.value);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(box.value);
    }
  });
  box.addEventListener("input", grow);
  $("retry").addEventListener("click", () => send(state.failed || box.value));
  $("new-conversation").addEventListener("click", newConversation);
  document.addEventListener("duocthu:signed-out", newConversation); // the next clinician sees nothing of it
  $("jump").addEventListener("click", jumpToNewest);
  window.addEventListener("scroll", updateJump, { passive: true });
  window.addEventListener("resize", updateJump);
  new ResizeObserver(fitScrollPadding).observe($("top")); // the pill, the account line, a rotation
  restore();
  grow();
  showSampleNotice();
  updateJump();
  box.focus();
});
