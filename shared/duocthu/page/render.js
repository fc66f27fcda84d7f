// The reply's blocks (duocthu.models.reply) as the page draws them. Every text from the server is
// set with textContent (never as markup); each block names its drug, section and pages once and the
// book and edition are named once per reply (`reply.source`).
"use strict";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function pages(citation) {
  return citation.page_start === citation.page_end
    ? `tr. ${citation.page_start}`
    : `tr. ${citation.page_start}–${citation.page_end}`;
}

const citationKey = (c) => `${c.drug_id}|${c.section_key}|${c.page_start}|${c.page_end}`;

// The patient table's facets, as the text reply heads its columns (answer/patient_table.py).
const FACET_HEADINGS = {
  interaction: "Thuốc đang dùng",
  warnings: "Chống chỉ định / thận trọng",
  dosage: "Liều",
  pregnancy: "Mang thai",
  breastfeeding: "Cho con bú",
};
const STATUS_CLASS = {
  CONTRAINDICATED: "status-ci",
  CAUTION: "status-caution",
  SUPPORTED: "status-said",
  NO_CHANGE_STATED: "status-said",
  INSUFFICIENT_EVIDENCE: "status-none",
};
// Above this many characters a section after the reply's first starts collapsed.
const LONG_SECTION = 400;

// What the blocks of one reply cite: each distinct drug + section + pages once, with the id of the
// first block that quotes it (a chip jumps there) and the drug's name as a section block gives it.
function citationsOf(blocks, prefix) {
  const names = {};
  for (const block of blocks) if (block.type === "section") names[block.drug_id] = block.display_name;
  const cited = new Map();
  blocks.forEach((block, index) => {
    if (!block.citation) return;
    const key = citationKey(block.citation);
    if (!cited.has(key)) {
      const c = block.citation;
      cited.set(key, { ...c, name: names[c.drug_id] || c.drug_id, target: `${prefix}-b${index}` });
    }
  });
  return [...cited.values()];
}

function chipLabel(c) {
  return `${c.name} – ${c.heading} – ${pages(c)}`;
}

// Jumping to a block opens it (a collapsed section) and moves the focus there.
function jumpTo(id) {
  const target = document.getElementById(id);
  if (!target) return;
  if (target.tagName === "DETAILS") target.open = true;
  target.scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
}

function citationChips(cited) {
  const list = el("ul", "chips");
  list.setAttribute("aria-label", "Trích dẫn");
  for (const c of cited) {
    const item = el("li");
    const chip = el("a", "chip", chipLabel(c));
    chip.href = `#${c.target}`;
    chip.addEventListener("click", (event) => {
      event.preventDefault();
      jumpTo(c.target);
    });
    item.append(chip);
    list.append(item);
  }
  return list;
}

// The sentences that answer the question, first and emphasised; a sentence from a section not
// quoted below has its source beside it.
function answerLinesBlock(block, quotedSections) {
  const box = el("div", "lead answering");
  const [heading, ...others] = block.lines;
  box.append(el("p", "lead-heading", heading));
  const list = el("ul", "answer-lines");
  list.setAttribute("aria-label", "Câu trả lời trong mục");
  for (const quote of block.quotes) {
    const row = el("li");
    row.append(el("q", null, quote.text));
    if (!quotedSections.has(`${quote.drug_id}|${quote.section_key}`)) row.append(el("cite", null, ` (${quote.citation})`));
    list.append(row);
  }
  box.append(list);
  for (const line of others) if (!line.startsWith("- “") && line.trim()) box.append(el("p", null, line));
  return box;
}

function sectionBlock(block, id, open) {
  const box = el("details", "section");
  box.id = id;
  box.tabIndex = -1;
  box.open = open;
  box.append(el("summary", null, `${block.display_name} – ${block.citation.heading} (${pages(block.citation)})`));
  for (const paragraph of block.paragraphs) {
    const p = el("p", paragraph.needs_visual_check ? "check" : null, paragraph.text);
    box.append(p);
  }
  return box;
}

function caption(table, text, citation) {
  const cap = el("caption", null, text);
  if (citation) cap.append(el("span", "cap-source", ` (${citation.heading}, ${pages(citation)})`));
  table.append(cap);
}

function headerRow(table, header) {
  const row = el("tr");
  for (const cell of header) {
    const th = el("th", null, cell);
    th.scope = "col";
    row.append(th);
  }
  const head = el("thead");
  head.append(row);
  table.append(head);
}

// A table of a section, rows as rows; the row an answering line quotes (the patient's weight or
// age band) is marked.
function tableBlock(block, id, quotedRows) {
  const wrap = el("div", "table-wrap");
  const table = el("table", block.header.length > 3 ? "data cards" : "data");
  table.id = id;
  table.tabIndex = -1;
  caption(table, block.caption || "Bảng", block.citation);
  if (block.header.length) headerRow(table, block.header);
  const body = el("tbody");
  for (const cells of block.rows) {
    const row = el("tr");
    const matches = quotedRows.has(cells.join(" | "));
    cells.forEach((cell, index) => {
      const td = el(index === 0 ? "th" : "td", null, cell);
      if (index === 0) td.scope = "row";
      if (block.header[index]) td.dataset.label = block.header[index];
      row.append(td);
    });
    if (matches) {
      row.className = "match";
      row.cells[0].append(el("span", "match-label", " ◀ khớp với người bệnh"));
    }
    body.append(row);
  }
  table.append(body);
  wrap.append(table);
  return wrap;
}

function statusCell(tag, cell, label) {
  const td = el(tag, `status ${STATUS_CLASS[cell.status] || "status-none"}`);
  td.dataset.label = label;
  td.append(el("span", "status-word", cell.word));
  if (cell.quotes.length) {
    const more = el("details", "quotes");
    more.append(el("summary", null, `Câu trích (${cell.quotes.length})`));
    for (const quote of cell.quotes) more.append(el("blockquote", null, quote));
    td.append(more);
  }
  return td;
}

// Each drug checked against the patient: a coloured status with its words per facet, and the
// sentences each comes from. On a phone each drug is a card.
function patientTableBlock(block, id) {
  const facets = [];
  for (const row of block.rows) for (const cell of row.facets) if (!facets.includes(cell.facet)) facets.push(cell.facet);
  const wrap = el("div", "table-wrap");
  const table = el("table", "patient cards");
  table.id = id;
  table.tabIndex = -1;
  caption(table, "Đối chiếu từng thuốc với người bệnh");
  const header = ["Thuốc", ...facets.map((f) => FACET_HEADINGS[f] || f)];
  headerRow(table, header);
  const body = el("tbody");
  for (const row of block.rows) {
    const tr = el("tr", STATUS_CLASS[row.status] || "");
    const name = el("th", "drug", row.name);
    name.scope = "row";
    tr.append(name);
    facets.forEach((facet, index) => {
      const cell = row.facets.find((c) => c.facet === facet);
      const td = cell ? statusCell("td", cell, header[index + 1]) : el("td", "status status-none", "–");
      if (!cell) td.dataset.label = header[index + 1];
      tr.append(td);
    });
    body.append(tr);
  }
  table.append(body);
  wrap.append(table);
  return wrap;
}

function linesBlock(block, className) {
  const box = el("div", className);
  for (const line of block.lines) if (line.trim()) box.append(el("p", null, line));
  return box;
}

function drugListBlock(block, cited) {
  const list = el("ul", "drug-list");
  for (const drug of block.drugs) {
    const item = el("li");
    const target = cited.find((c) => c.drug_id === drug.drug_id && c.section_key === drug.section_key);
    if (target) {
      const link = el("a", null, drug.name);
      link.href = `#${target.target}`;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        jumpTo(target.target);
      });
      item.append(link);
    } else {
      item.textContent = drug.name;
    }
    list.append(item);
  }
  return list;
}

// The check-the-printed-page notice names the blocks it is about.
function verifyBanner(block, blocks, cited) {
  const flagged = new Set();
  for (const b of blocks) {
    const needs = b.needs_visual_check || (b.paragraphs || []).some((p) => p.needs_visual_check);
    if (needs && b.citation) flagged.add(citationKey(b.citation));
  }
  const where = cited.filter((c) => flagged.has(citationKey(c))).map((c) => `${c.name}, ${c.heading}, ${pages(c)}`);
  const banner = el("p", "banner", block.text + (where.length ? ` (${where.join("; ")})` : ""));
  banner.setAttribute("role", "note");
  return banner;
}

function sourceLine(source) {
  const line = el("p", "source", `Nguồn: ${source.book} (${source.edition})`);
  if (source.sample_data) line.append(el("strong", null, " [DỮ LIỆU MẪU]"));
  return line;
}

// One answer's body: the blocks in order, the citation chips after the answering lines (or first),
// the book once at the end.
function renderBlocks(reply, prefix) {
  const blocks = reply.blocks || [];
  const cited = citationsOf(blocks, prefix);
  const quotedSections = new Set(cited.map((c) => `${c.drug_id}|${c.section_key}`));
  const quotedRows = new Set();
  for (const b of blocks) if (b.type === "answer_lines") for (const q of b.quotes) quotedRows.add(q.text);
  const parts = [];
  let sections = 0;
  blocks.forEach((block, index) => {
    const id = `${prefix}-b${index}`;
    if (block.type === "answer_lines") parts.push(answerLinesBlock(block, quotedSections));
    else if (block.type === "section") {
      const long = block.paragraphs.reduce((n, p) => n + p.text.length, 0) > LONG_SECTION;
      parts.push(sectionBlock(block, id, sections === 0 || !long));
      sections += 1;
    } else if (block.type === "table") parts.push(tableBlock(block, id, quotedRows));
    else if (block.type === "patient_table") parts.push(patientTableBlock(block, id));
    else if (block.type === "drug_list") parts.push(drugListBlock(block, cited));
    else if (block.type === "notice" && block.kind === "verify_pdf") parts.push(verifyBanner(block, blocks, cited));
    else if (block.type === "notice" && block.kind === "source" && reply.source) return; // named once below
    else if (block.type === "notice" && block.kind === "sample_data") parts.push(el("p", "note", block.text));
    else parts.push(linesBlock(block, `block ${block.type}`));
  });
  if (cited.length) {
    const lead = parts.findIndex((p) => p.classList.contains("answering"));
    parts.splice(lead + 1, 0, citationChips(cited));
  }
  if (reply.source) parts.push(sourceLine(reply.source));
  return { parts, cited };
}

// What "Sao chép" puts on the clipboard: the question, the answer and every citation in full.
function copyText(question, reply, cited) {
  const out = [`Câu hỏi: ${question}`, "", reply.answer];
  if (cited.length) {
    out.push("", "Trích dẫn:");
    const book = reply.source ? `${reply.source.book} (${reply.source.edition}), ` : "";
    for (const c of cited) out.push(`- ${book}${c.name}, mục “${c.heading}”, ${pages(c)}`);
  }
  return out.join("\n");
}
