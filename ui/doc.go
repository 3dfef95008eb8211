// Package ui is ibid's chat: a Bubble Tea program whose root model routes
// messages to one model per pane (transcript, sources, input, viewer) and
// draws a status line and a help bar built from the keymap.
//
// Answers arrive as rag.Event values from a Backend running in a command's
// goroutine; every stream message carries the request id of its answer, so
// a cancelled answer's stragglers are dropped. No pane does I/O in Update or
// View: lookups, saves, exports and additions run in commands that return
// typed messages.
//
// Rendering: finished Markdown blocks are rendered once per width with
// glamour and cached; the block still streaming is drawn as cheap wrapped
// text; reference nodes travel through glamour as same-width placeholders
// (⟦n⟧) and are swapped for styled chips afterwards.
package ui
