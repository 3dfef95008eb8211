// Package ui is ibid's chat: a Bubble Tea program whose root model (Model,
// chat.go) routes messages to panes behind one small interface (Pane: the
// input, the transcript, the sources, the viewer). The root handles the
// global keys, gives every pane its size, sends keys to the focused pane
// and mouse events to the pane under the pointer; each pane's help.KeyMap
// builds both the help bar and the ? screen from the one KeyMap (keys.go).
//
// Answers arrive as rag.Event values from a Backend running in a command's
// goroutine; every stream message carries the request id of its answer, so
// a cancelled answer's stragglers are dropped. No pane does I/O in Update or
// View: lookups, saves, exports and additions run in commands that return
// typed messages.
//
// Rendering: finished Markdown blocks are rendered once per width with
// glamour and cached; the block still streaming is rendered now and then
// and continued by plain wrapped text, so words never move between frames;
// reference nodes travel through glamour as same-width placeholders (⟦n⟧)
// and are swapped for styled chips afterwards. Colours come from a Theme
// (light or dark) whose every text colour meets WCAG AA contrast.
package ui
