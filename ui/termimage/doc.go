// Package termimage shows pictures in terminals that display them: it
// asks the terminal what it can do (Detect: the Kitty graphics protocol's
// query, XTVERSION, the cell size, DA1) and decides from its answers, and
// from the environment only where no multiplexer can stand in between
// (Caps.Protocol), never from a terminal's name alone; then it encodes a
// PNG for the protocol found (Encode: Kitty's graphics commands, iTerm2's
// inline images, or DEC sixels from a dithered palette).
//
// It uses the standard library and charmbracelet/x/term (raw mode) only,
// reads no environment (Env is filled by the command line) and knows
// nothing of the chat.
package termimage
