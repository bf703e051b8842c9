// The live Tokenize component's entry (ui/tokenize/live.py registers it): it loads ui/web/tokenize.js from the
// app's static folder (data.assets, a folder named by the modules' hash), which builds the view and starts the
// worker, and hands it the component.
export default async function (component) {
  const base = new URL(component.data.assets, document.baseURI).href;
  const { mount } = await import(base + "tokenize.js");
  return mount(component, base);
}
