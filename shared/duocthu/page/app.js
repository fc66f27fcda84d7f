// The clinicians' chat page. Plain JavaScript, no dependencies. Every text from the server is
// inserted with textContent (never innerHTML), and the session id is only ever the server's.
"use strict";

// What a clinician reads for each refusal; `wait` is the server's Retry-After, when it sends one.
const ERROR_MESSAGES = {
  422: () => "Câu hỏi chưa hợp lệ (trống hoặc dài quá 2000 ký tự). Hãy sửa câu hỏi rồi gửi lại.",
  429: (wait) => `Hệ thống đang nhận quá nhiều câu hỏi. Hãy đợi ${wait || "một lát"} rồi gửi lại.`,
  503: (wait) => `Hệ thống tạm thời không truy cập được dữ liệu Dược thư. Hãy gửi lại sau ${wait || "ít phút"}.`,
};
const NETWORK_MESSAGE = "Không kết nối được máy chủ. Hãy kiểm tra kết nối mạng rồi gửi lại.";
const KEPT = " Câu hỏi của bạn vẫn còn trong ô nhập.";

const state = { sessionId: null, busy: false };
const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function pages(ref) {
  return ref.page_start === ref.page_end ? `tr. ${ref.page_start}` : `tr. ${ref.page_start}–${ref.page_end}`;
}

// One chip per distinct "Thuốc – mục – tr. N" among the quoted evidence.
function citationChips(evidence) {
  const labels = [];
  for (const item of evidence) {
    for (const ref of item.source_refs) {
      const label = `${item.display_name} – ${ref.section_heading} – ${pages(ref)}`;
      if (!labels.includes(label)) labels.push(label);
    }
  }
  const list = el("ul", "chips");
  list.setAttribute("aria-label", "Trích dẫn");
  for (const label of labels) list.append(el("li", "chip", label));
  return list;
}

function visualCheckBanner(reply) {
  const flagged = reply.bundle.evidence.filter((e) => e.requires_visual_check || e.has_quarantined_content);
  if (reply.decision !== "VERIFY_PDF" && flagged.length === 0) return null;
  const where = [];
  for (const item of flagged) {
    for (const ref of item.source_refs) {
      const label = `${item.display_name}, ${ref.section_heading}, ${pages(ref)}`;
      if (!where.includes(label)) where.push(label);
    }
  }
  const banner = el("p", "banner", "Cần đối chiếu bản in: phần trích dẫn có bảng, hình hoặc nội dung đang bị cách ly. " +
    "Hãy xem trực tiếp trang in trước khi dùng" + (where.length ? ` (${where.join("; ")}).` : "."));
  banner.setAttribute("role", "note");
  return banner;
}

// The answer's first paragraph is its lead; a closing "Lưu ý:" paragraph (the sample-data note)
// stays visible below the sections.
function answerParts(text) {
  const paragraphs = text.split("\n\n");
  const last = paragraphs[paragraphs.length - 1];
  const note = paragraphs.length > 1 && last.startsWith("Lưu ý:") ? paragraphs.pop() : "";
  const lead = paragraphs.shift();
  return { lead, rest: paragraphs.join("\n\n"), note };
}

// A focused section question's lead: the sentences that answer it (the response's answer_lines),
// quoted; the heading names their section and the citation chips follow the lead.
function answeringLines(reply, lead) {
  const [heading, ...others] = lead.split("\n");
  const box = el("div", "lead answering");
  box.append(el("p", "lead-heading", heading));
  const list = el("ul", "answer-lines");
  list.setAttribute("aria-label", "Câu trả lời trong mục");
  // a line from a section not quoted below (Dược lý for "X có gây Y không?") has no chip: its source
  // stands beside it
  const quoted = new Set(reply.bundle.evidence.map((item) => item.id));
  for (const line of reply.answer_lines.lines) {
    const row = el("li");
    row.append(el("q", null, line.text));
    if (!quoted.has(line.evidence_id)) row.append(el("cite", null, ` (${line.citation})`));
    list.append(row);
  }
  box.append(list);
  for (const line of others) if (!line.startsWith("- “") && line.trim()) box.append(el("p", null, line));
  return box;
}

function sectionBlock(title) {
  const block = el("details", "section");
  block.open = true;
  block.append(el("summary", null, title));
  return block;
}

// The rest of the answer, one collapsible block per quoted section (a line opening with "【");
// a rest that continues the lead's section is a block of its own, "(tiếp)".
function quotedSections(lead, rest) {
  const box = el("div", "sections");
  const headings = lead.split("\n").filter((line) => line.startsWith("【"));
  let block = null;
  if (headings.length && !rest.startsWith("【")) {
    block = sectionBlock(`${headings[headings.length - 1]} (tiếp)`);
    box.append(block);
  }
  for (const line of rest.split("\n")) {
    if (line.startsWith("【")) {
      block = sectionBlock(line);
      box.append(block);
    } else if (!line.trim()) {
      continue;
    } else if (block) {
      block.append(el("p", null, line));
    } else {
      box.append(el("p", null, line));
    }
  }
  return box;
}

function quickReplies(replies) {
  const box = el("div", "quick-replies");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Gợi ý trả lời");
  for (const text of replies) {
    const button = el("button", "quick-reply", text);
    button.type = "button";
    button.addEventListener("click", () => send(text, false));
    box.append(button);
  }
  return box;
}

function kindOf(reply) {
  if (reply.decision !== "ABSTAIN") return "answer";
  if (reply.reason === "needs_clarification") return "clarify";
  if (reply.reason === "smalltalk") return "smalltalk";
  // A dependency down is not the formulary lacking the answer: it says it could not look.
  if (reply.reason === "dependency_unavailable") return "unavailable";
  return "abstain";
}

const KIND_LABELS = {
  answer: "Trả lời từ Dược thư",
  clarify: "Cần làm rõ câu hỏi",
  smalltalk: "Trợ lý",
  abstain: "Không có thông tin",
  unavailable: "Chưa tra cứu được, hãy thử lại",
};

function renderReply(reply) {
  const kind = kindOf(reply);
  const item = el("li", `turn reply ${kind === "unavailable" ? "abstain unavailable" : kind}`);
  item.dataset.decision = reply.decision;
  item.dataset.reason = reply.reason;
  item.append(el("p", "kind", KIND_LABELS[kind]));
  if (kind === "answer") {
    const banner = visualCheckBanner(reply);
    if (banner) item.append(banner);
    const { lead, rest, note } = answerParts(reply.answer);
    const focused = reply.answer_lines && reply.answer_lines.lines.length > 0;
    item.append(focused ? answeringLines(reply, lead) : el("p", "lead", lead));
    if (reply.bundle.evidence.length) item.append(citationChips(reply.bundle.evidence));
    if (rest) item.append(quotedSections(lead, rest));
    if (note) item.append(el("p", "note", note));
  } else {
    for (const line of reply.answer.split("\n")) if (line.trim()) item.append(el("p", "text", line));
  }
  if (reply.quick_replies.length) item.append(quickReplies(reply.quick_replies));
  return item;
}

function setBusy(busy) {
  state.busy = busy;
  $("busy").hidden = !busy;
  $("send").disabled = busy;
  $("conversation").setAttribute("aria-busy", String(busy));
  for (const button of document.querySelectorAll(".quick-reply")) button.disabled = busy;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function errorMessage(status, retryAfter) {
  const wait = /^\d+$/.test(retryAfter || "") ? `${retryAfter} giây` : "";
  const says = ERROR_MESSAGES[status];
  return (says ? says(wait) : `Đã có lỗi phía máy chủ (mã ${status}). Hãy thử gửi lại.`) + KEPT;
}

// Sends one turn. The typed text stays in the box until the server has answered it.
async function send(text, fromBox) {
  if (state.busy || !text.trim()) return;
  showError("");
  const question = el("li", "turn question", text);
  $("conversation").append(question);
  setBusy(true);
  const body = { message: text };
  if (state.sessionId) body.session_id = state.sessionId;
  try {
    const response = await fetch("v1/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      question.remove();
      showError(errorMessage(response.status, response.headers.get("Retry-After")));
      return;
    }
    const reply = await response.json();
    state.sessionId = reply.session_id;
    $("conversation").append(renderReply(reply));
    if (fromBox) $("message").value = "";
  } catch (err) {
    question.remove();
    showError(NETWORK_MESSAGE + KEPT);
  } finally {
    setBusy(false);
    if (question.isConnected) question.scrollIntoView({ block: "start" });
    if (fromBox) $("message").focus(); // a disabled Gửi button drops the focus
  }
}

function newConversation() {
  state.sessionId = null;
  $("conversation").replaceChildren();
  showError("");
  $("message").focus();
}

// The notice shows from the first paint and goes only when /health says the index is not sample
// data: a slow or failing /health never hides it.
async function showSampleNotice() {
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
    send(box.value, true);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(box.value, true);
    }
  });
  $("new-conversation").addEventListener("click", newConversation);
  showSampleNotice();
  box.focus();
});
