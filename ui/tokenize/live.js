// The live Tokenize component's entry (ui/tokenize/live.py registers it): it loads ui/web/tokenize.js from the
// app's static folder (data.assets, a folder named by the modules' hash), which builds the view and starts the
// worker, and hands it the component. On the first mount the text box is drawn at once, before that load, with a
// placeholder where the tokens go: tokenize.js takes over what was typed into it (LiveView.adopt).
export default async function (component) {
  const { data, parentElement } = component;
  if (!parentElement.__bpeLive && !parentElement.querySelector(".bpe-live-early")) early(parentElement, data);
  const base = new URL(data.assets, document.baseURI).href;
  const { mount } = await import(base + "tokenize.js");
  return mount(component, base);
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
