// The top pairs for a window of training steps, as the server sends them (ui/step/stepper.py): handed to the
// stepper through ui/step/channel.js. Draws nothing itself.
import { publish } from "./channel.js";

export default function (component) {
  const data = component.data;
  if (data && data.id && Array.isArray(data.pairs)) publish(data.id, { from: data.from, pairs: data.pairs });
}
