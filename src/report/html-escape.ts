// Every piece of text that reaches an HTML report goes through here: dump paths, exception names,
// frame text, heap ids and messages come from dumps, debuggers and users (attacker-controlled in a
// crash-triage setting), and a `<` in a C++ template name must stay text.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe inside element text and inside double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}
