//go:build race

package embedded

// raceEnabled: the race detector slows the largest tests tenfold and
// changes allocation counts.
const raceEnabled = true
