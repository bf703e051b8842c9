// The live Tokenize component's entry (ui/tokenize/live.py registers it): ui/web/tokenize.js builds the view and
// starts the worker, which loads its modules from data.assets (the static folder's web/, named by the modules' hash).
import { mount } from "../web/tokenize.js";

export default function (component) {
  return mount(component, new URL(component.data.assets, document.baseURI).href);
}
