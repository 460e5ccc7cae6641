// Every piece of text that reaches report.html goes through here: heap ids, frame names, file paths
// and messages come from debuggers and users, and a `<` in a C++ template name must stay text.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}
