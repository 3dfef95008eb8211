// Package ui is ibid's chat: a Bubble Tea program whose root model (Model,
// chat.go) routes messages to panes behind one small interface (pane: the
// input, the transcript, the sources and the passage viewer). The root
// handles the global keys, gives every pane its size, sends keys to the
// focused pane and mouse events to the pane under the pointer; each pane's
// help.KeyMap builds both the help bar and the ? screen from the one
// keymap (keys.go).
//
// Answers arrive as rag.Event values from a backend.Backend running in a
// command's goroutine; every stream message carries the request id of its
// answer, so a cancelled answer's stragglers are dropped. No pane does I/O
// in Update or View: lookups, saves, exports and additions run in
// commands that return typed messages.
//
// Three rooms of their own sit below it and never import it: ui/backend
// is what the chat asks of the world (a library, a model, the
// conversation in progress: the Backend interface) and the real one over
// rag (RAG, with the background sync of the library's folders); ui/render
// draws answers' Markdown (finished blocks rendered once per width with
// glamour and cached; the block still streaming rendered now and then and
// continued by plain wrapped text, so words never move between frames;
// reference nodes carried through glamour as same-width placeholders and
// swapped for chips afterwards); and ui/viewer is the passage viewer, a
// pane the chat opens on a cited source. ui hands render and viewer what
// they need as values: a palette and the chips' styles, the viewer's keys
// and styles, the programs its o runs. Colours come from a theme (light
// or dark) whose every text colour meets WCAG AA contrast.
package ui
