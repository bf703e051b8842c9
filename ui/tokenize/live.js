// The live Tokenize component's entry (ui/tokenize/live.py registers it): ui/web/tokenize.js builds the view and
// starts the worker, which loads its modules from data.assets (the static folder's web/, named by the modules' hash).
// On the first mount the text box is drawn at once, with a placeholder where the tokens go, and tokenize.js is
// imported after that: it takes over what was typed into the box meanwhile (LiveView.adopt).
export default async function (component) {
  const { data, parentElement } = component;
  if (!parentElement.__bpeLive && !parentElement.querySelector(".bpe-live-early")) early(parentElement, data);
  const { mount } = await import("../web/tokenize.js");
  return mount(component, new URL(data.assets, document.baseURI).href);
}

function early(root, data) {
  const make = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  };
  const wrap = make("div", "bpe-live bpe-live-early" + (data.mode === "chat" ? " chat" : ""));
  const input = make("div", "bpe-live-in");
  const id = "bpe-live-early-" + Math.random().toString(36).slice(2);
  const label = make("label", "bpe-live-label", "Text");
  label.htmlFor = id;
  const box = make("div", "bpe-live-box");
  const textarea = make("textarea");
  textarea.id = id;
  textarea.spellcheck = false;
  textarea.value = typeof data.text === "string" ? data.text : "";
  box.append(textarea);
  input.append(label, box);
  const wait = make("div", "bpe-live-wait", "Tokenizing…");
  wait.setAttribute("role", "status");
  const output = make("div", "bpe-live-out");
  output.setAttribute("aria-busy", "true");
  output.append(wait);
  wrap.append(input, output);
  root.append(wrap);
}
