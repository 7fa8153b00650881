// Nodes render Jinja2 through the bounded, off-thread renderer in src/jinja.
export { JinjaError, renderJinja, TEMPLATE_MAX_LENGTH } from "../jinja/index.js";
