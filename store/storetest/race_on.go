//go:build race

package storetest

// raceEnabled: the race detector slows bulk loads about tenfold, so the
// largest tests run at a smaller size under it (they run full size without).
const raceEnabled = true
